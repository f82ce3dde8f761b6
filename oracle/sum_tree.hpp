// The sum-tree draw (issue 16): seed 000's two-level idea -- sums of blocks
// first, then a search inside the chosen block -- applied at every level of
// one binary tree over a row, so that a row as long as a vocabulary (or a
// whole graph's degrees) is split over a warp, a block or many blocks and
// drawn from with the same result. This file is the scalar definition; the
// model (sum_tree_draw.hpp) and the kernels (gpu/sum_tree_sampler.cu) must
// equal it bit for bit.
//
// The tree. A row of K weights (fp32 or fp64, summed in doubles) is cut into
// segments of G = 32 lanes x 32 vectors x E elements (E = 16 bytes / the
// weight's size: G = 4,096 fp32 or 2,048 fp64 weights), the last padded with
// zeros. Bottom up:
//   vector   E consecutive weights, the one 16-byte load a lane makes: E = 4
//            is (x0 + x1) + (x2 + x3), E = 2 is x0 + x1;
//   lane     lane l of a segment takes vectors l, 32 + l, 64 + l, ... (a
//            warp's load is 512 consecutive bytes) and sums them in that
//            order: r = 0, r += q_j (a left-deep tree);
//   segment  the 32 lanes' sums by pairs, (0 + 1), (2 + 3), ..., then pairs
//            of those (a warp's xor butterfly: each lane ends with every sum);
//   row      the segments' sums by pairs likewise, their number padded to a
//            power of two with zeros.
// Every node is its left child plus its right child, rounded once (IEEE
// addition is commutative, so the butterfly's two lanes of a pair agree).
//
// The draw. u is rng/'s 53-bit double for (seed, stream = row, draw = s),
// t = u * S rounded once (S the root), and from the root down each node is
// left for t < (left child's sum); else right, with t - left rounded once,
// if the right child's sum is > 0; else left. The draw is the weight reached.
// Only nodes of positive sum are entered, so a draw never lands on a weight
// of 0 (a row of zeros draws index 0). The left-deep lane node reads as: the
// last vector j whose q_j > 0 with t >= r_(j-1) (r_(-1) = 0).
//
// Resolution: t falls into a weight's interval of the tree with an error of a
// few units in the 53rd bit of S at each of the <= 60 levels, and u has 53
// bits, so an item's rate is its weight's share within about 2^-45 of the
// row (docs/resolution.md; a property checks it exactly, bisecting u).
// Seed 000's fp32 samplers, summing in fp32 with 24-bit u, resolve 2^-24.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "rng/philox_uniform.hpp"

namespace warpsim::oracle::sum_tree {

constexpr int kLanes = 32;
constexpr int kVectorsPerLane = 32;
template <class T>
constexpr int kVectorElems = 16 / static_cast<int>(sizeof(T));
template <class T>
constexpr std::size_t kSegment = static_cast<std::size_t>(kLanes) * kVectorsPerLane * kVectorElems<T>;

template <class T>
constexpr std::size_t segments_of(std::size_t k) {
  return (k + kSegment<T> - 1) / kSegment<T>;
}

// Where (segment, lane, j, c) lies in the row: vector 32 j + l of the
// segment, its element c.
template <class T>
constexpr std::size_t element_of(std::size_t segment, int lane, int j, int c) {
  return segment * kSegment<T> + (static_cast<std::size_t>(j) * kLanes + static_cast<std::size_t>(lane)) * kVectorElems<T> +
         static_cast<std::size_t>(c);
}

// Addition rounded once (the compilers never fuse an addition alone; the
// kernels write __dadd_rn to make it plain).
inline double add(double a, double b) { return a + b; }
inline double sub(double a, double b) { return a - b; }
inline double mul(double a, double b) {
  volatile double p = a * b;  // never fused into a following subtraction
  return p;
}

// One row's weights as the tree sees them (zeros past K).
template <class T>
struct RowView {
  std::span<const T> w;
  double at(std::size_t i) const { return i < w.size() ? static_cast<double>(w[i]) : 0.0; }
  // Vector j of lane l of segment g: its elements and its sum.
  void vector(std::size_t g, int l, int j, double (&x)[kVectorElems<T>]) const {
    for (int c = 0; c < kVectorElems<T>; ++c) x[c] = at(element_of<T>(g, l, j, c));
  }
};

template <class T>
double vector_sum(const double (&x)[kVectorElems<T>]) {
  if constexpr (kVectorElems<T> == 4) return add(add(x[0], x[1]), add(x[2], x[3]));
  else return add(x[0], x[1]);
}

template <class T>
double lane_sum(const RowView<T>& row, std::size_t g, int l) {
  double r = 0;
  for (int j = 0; j < kVectorsPerLane; ++j) {
    double x[kVectorElems<T>];
    row.vector(g, l, j, x);
    r = add(r, vector_sum<T>(x));
  }
  return r;
}

// A complete binary tree over 2^levels leaves, level 0 the leaves: node i of
// level h is nodes 2i and 2i + 1 of level h - 1 added.
struct PairTree {
  std::vector<std::vector<double>> level;
  explicit PairTree(std::vector<double> leaves) {
    std::size_t p = std::bit_ceil(std::max<std::size_t>(leaves.size(), 1));
    leaves.resize(p, 0.0);
    level.push_back(std::move(leaves));
    while (level.back().size() > 1) {
      const auto& below = level.back();
      std::vector<double> up(below.size() / 2);
      for (std::size_t i = 0; i < up.size(); ++i) up[i] = add(below[2 * i], below[2 * i + 1]);
      level.push_back(std::move(up));
    }
  }
  double root() const { return level.back()[0]; }
  // The descent from the root to a leaf; t becomes the leaf's own target.
  std::size_t descend(double& t) const {
    std::size_t i = 0;
    for (std::size_t h = level.size() - 1; h > 0; --h) {
      const double left = level[h - 1][2 * i], right = level[h - 1][2 * i + 1];
      if (t < left || !(right > 0)) {
        i = 2 * i;
      } else {
        t = sub(t, left);
        i = 2 * i + 1;
      }
    }
    return i;
  }
};

// Inside segment g's lane l from its target t: the vector (the last j with
// q_j > 0 and t >= r_(j-1)), then the element inside it.
template <class T>
std::size_t descend_lane(const RowView<T>& row, std::size_t g, int l, double t) {
  double r = 0, below = 0;  // r_(j-1) then r_j; below: r_(j*-1)
  int chosen = 0;
  for (int j = 0; j < kVectorsPerLane; ++j) {
    if (!(t >= r)) break;  // (r never falls: the vectors from here on are past t)
    double x[kVectorElems<T>];
    row.vector(g, l, j, x);
    const double q = vector_sum<T>(x);
    if (q > 0) chosen = j, below = r;
    r = add(r, q);
  }
  double x[kVectorElems<T>];
  row.vector(g, l, chosen, x);
  t = sub(t, below);
  int c = 0;
  if constexpr (kVectorElems<T> == 4) {
    const double left = add(x[0], x[1]), right = add(x[2], x[3]);
    int half = 0;
    if (!(t < left) && right > 0) t = sub(t, left), half = 1;
    c = 2 * half;
  }
  if (!(t < x[c]) && x[c + 1] > 0) c += 1;
  return element_of<T>(g, l, chosen, c);
}

// A row prepared for many draws: its row tree over the segments' sums and
// each segment's tree over its 32 lanes' sums, built once (a draw then reads
// only the chosen lane's vectors, as the kernels' descent does).
template <class T>
class Row {
 public:
  explicit Row(std::span<const T> w) : w_(w) {
    if (w.empty()) throw std::invalid_argument("sum_tree::draw: an empty row");
    const RowView<T> row{w};
    std::vector<double> sums(segments_of<T>(w.size()));
    lanes_.reserve(sums.size());
    for (std::size_t g = 0; g < sums.size(); ++g) {
      std::vector<double> lanes(kLanes);
      for (int l = 0; l < kLanes; ++l) lanes[static_cast<std::size_t>(l)] = lane_sum(row, g, l);
      lanes_.emplace_back(std::move(lanes));
      sums[g] = lanes_.back().root();
    }
    tree_ = PairTree(std::move(sums));
  }
  // The row's tree: its leaves are the segments' sums, its root the total S.
  const PairTree& tree() const { return tree_; }
  // The draw for one uniform u (rng::uniform<double>): an index into the row.
  std::size_t draw(double u) const {
    double t = mul(u, tree_.root());
    const std::size_t g = tree_.descend(t);
    const auto l = static_cast<int>(lanes_[g].descend(t));
    return descend_lane(RowView<T>{w_}, g, l, t);
  }

 private:
  std::span<const T> w_;
  PairTree tree_{{}};
  std::vector<PairTree> lanes_;
};

// The segments' sums of a row (the leaves of its row tree).
template <class T>
std::vector<double> segment_sums(std::span<const T> w) {
  auto leaves = Row<T>(w).tree().level.front();
  leaves.resize(segments_of<T>(w.size()));  // (without the padding to a power of two)
  return leaves;
}

template <class T>
std::size_t draw(std::span<const T> w, double u) {
  return Row<T>(w).draw(u);
}

// Draws s = 0 .. draws - 1 of every row of an M x K row-major matrix, draw s
// of row r from rng::uniform<double>(seed, r, s), at r * draws + s: what the
// kernels and the model must give.
template <class T>
std::vector<int> draw_matrix(std::span<const T> w, int m, std::size_t k, std::uint64_t seed, int draws) {
  if (w.size() != static_cast<std::size_t>(m) * k) throw std::invalid_argument("sum_tree::draw_matrix: M x K does not match the weights");
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(m) * static_cast<std::size_t>(draws));
  for (int r = 0; r < m; ++r) {
    const auto row = w.subspan(static_cast<std::size_t>(r) * k, k);
    const Row<T> prepared(row);
    for (int s = 0; s < draws; ++s) {
      const double u = rng::uniform<double>(seed, static_cast<std::uint64_t>(r), static_cast<std::uint32_t>(s));
      out.push_back(static_cast<int>(prepared.draw(u)));
    }
  }
  return out;
}

}  // namespace warpsim::oracle::sum_tree
