# Sourced by the device scripts (scripts/device_alias.sh, device_rejection.sh)
# with $logs set: records the device and the compiler in $logs/device.txt,
# and starts building the thesis's code from .thesis-src (where carried) in
# the background into $thesis_bin, its pid in $build_pid, so the build
# overlaps the tests; the caller waits for it before timing the thesis.
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv > "$logs/device.txt" 2>&1
nvcc --version | tail -1 >> "$logs/device.txt"
cat "$logs/device.txt"
thesis_bin=/tmp/thesis_bench
build_pid=
if [[ -d .thesis-src ]]; then
  (BUILD_ONLY=1 JOBS=12 bash bench/thesis_baseline/build_and_run.sh .thesis-src "$thesis_bin" > "$logs/thesis_build.log" 2>&1) &
  build_pid=$!
fi
