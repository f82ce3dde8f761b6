// Semantics of shfl.sync (the instruction behind __shfl_sync, __shfl_up_sync,
// __shfl_down_sync and __shfl_xor_sync), one pure function per mode, written
// after the pseudocode of the PTX ISA's shfl.sync and generalised from 32 to W
// lanes. They say only which lane a lane reads; whether that read is defined
// (source active, inside the member mask) is the warp's business.
//
// PTX packs `width` into the c operand as segmask = W - width; the lanes of a
// segment are [lane & segmask, (lane & segmask) | ~segmask]. The b operand is
// reduced to its low log2(W) bits, as PTX reduces it to b[4:0].
#pragma once

namespace warpsim::sim::insn {

enum class ShflMode { Idx, Up, Down, Bfly };

const char* shfl_mode_name(ShflMode mode);

// `lane` reads from `source`; `clamped` says the computed lane fell outside the
// segment and the lane reads its own value instead (defined behaviour).
struct ShflSource {
  int source;
  bool clamped;
};

// Preconditions (checked by the warp, not here): warp_width and width are
// powers of two with 1 <= width <= warp_width, 0 <= lane < warp_width.
// (Inlined in every build, as the model's accessors are: sim/lane_mask.hpp.)
[[gnu::always_inline]] inline constexpr ShflSource shfl_source(ShflMode mode, int lane, int b, int width, int warp_width) {
  const int lane_bits = warp_width - 1;
  const int segmask = (warp_width - width) & lane_bits;
  const int seg_start = lane & segmask;
  const int seg_end = seg_start | (lane_bits & ~segmask);
  const int bval = b & lane_bits;
  int j = lane;
  bool ok = true;
  switch (mode) {
    case ShflMode::Idx:
      j = seg_start | (bval & ~segmask);
      ok = j <= seg_end;
      break;
    case ShflMode::Up:
      j = lane - bval;
      ok = j >= seg_start;
      break;
    case ShflMode::Down:
      j = lane + bval;
      ok = j <= seg_end;
      break;
    case ShflMode::Bfly:
      // Only later segments are cut off: a lane may read an earlier segment,
      // as the CUDA Programming Guide states for __shfl_xor_sync.
      j = lane ^ bval;
      ok = j <= seg_end;
      break;
  }
  return ok ? ShflSource{j, false} : ShflSource{lane, true};
}

}  // namespace warpsim::sim::insn
