// result_wire_test.cpp — a file's result and a worker's clocks survive the trip through bytes
// (process_lanes.hpp's pipe) field for field; a cut or padded message is refused.
#include <catch2/catch.hpp>

#include "batch/result_wire.hpp"

using namespace gpublur;

namespace {

FileResult full_result() {
  FileResult r;
  r.job = Job{"in/ä.png", "out/\x01odd.png", ImageFormat::kJpeg, true};
  r.status = FileResult::Status::kFailed;
  r.error = "cannot read 'in/ä.png': truncated";
  r.exit_code = kExitUsage;
  r.bytes_in = 1234567890123ULL;
  r.bytes_out = 42;
  r.width = 1920, r.height = 1080, r.channels = 3, r.bits = 16;
  r.format_in = "png";
  r.device = "gpu";
  r.decoder = "nvjpeg hardware";
  r.encoder = "libjpeg-turbo";
  r.stacked = 32;
  r.stages = {{"read", 0.25}, {"gpu wait", 41.5}, {"write", -0.0}};
  r.notes = {"ICC profile not kept", ""};
  r.warning = "reduced to 8 bits";
  r.conversion = "16 to 8 bits";
  r.samples = SampleFormat::k16;
  r.kernel_key = "c3 s16 p0 l0";
  return r;
}

}  // namespace

TEST_CASE("a file's result comes back from its bytes field for field", "[lanes]") {
  const FileResult a = full_result();
  const FileResult b = result_from_bytes(result_bytes(a));
  CHECK(b.job.input == a.job.input);
  CHECK(b.job.output == a.job.output);
  CHECK(b.job.format == a.job.format);
  CHECK(b.job.exists == a.job.exists);
  CHECK(b.status == a.status);
  CHECK(b.error == a.error);
  CHECK(b.exit_code == a.exit_code);
  CHECK(b.bytes_in == a.bytes_in);
  CHECK(b.bytes_out == a.bytes_out);
  CHECK((b.width == 1920 && b.height == 1080 && b.channels == 3 && b.bits == 16));
  CHECK(b.format_in == a.format_in);
  CHECK(b.device == a.device);
  CHECK(b.decoder == a.decoder);
  CHECK(b.encoder == a.encoder);
  CHECK(b.stacked == a.stacked);
  CHECK(b.stages == a.stages);
  CHECK(b.notes == a.notes);
  CHECK(b.warning == a.warning);
  CHECK(b.conversion == a.conversion);
  CHECK(b.samples == a.samples);
  CHECK(b.kernel_key == a.kernel_key);
}

TEST_CASE("a worker's clocks come back from their bytes", "[lanes]") {
  GpuWorkerStats a;
  a.gpu.ordinal = 1;
  a.gpu.name = "NVIDIA H100 80GB HBM3";
  a.gpu.arch = Arch{9, 0};
  a.gpu.driver_version = 13000;
  a.gpu.memory_bytes = std::size_t{85} << 30;
  a.gpu.sm_count = 132;
  a.gpu.shared = false;
  a.images = 5000, a.launches = 157;
  a.busy_ms = 1.5, a.idle_ms = 2.5, a.launch_ms = 3.5, a.slot_wait_ms = 4.5, a.gpu_wait_ms = 5.5;
  a.hand_back_ms = 6.5, a.first_launch_ms = 7.5, a.decode_call_ms = 8.5, a.encode_call_ms = 9.5;
  a.codec_start_ms = 10.5;
  a.context_ready_at = 0.25, a.codec_ready_at = 1.25, a.first_stack_at = -1;
  a.takes_codec = true;
  a.failure = "GPU 1 failed";
  const GpuWorkerStats b = stats_from_bytes(stats_bytes(a));
  CHECK((b.gpu.ordinal == 1 && b.gpu.name == a.gpu.name && b.gpu.arch == a.gpu.arch));
  CHECK((b.gpu.driver_version == 13000 && b.gpu.memory_bytes == a.gpu.memory_bytes));
  CHECK((b.gpu.sm_count == 132 && !b.gpu.shared && b.images == 5000 && b.launches == 157));
  CHECK((b.busy_ms == 1.5 && b.idle_ms == 2.5 && b.launch_ms == 3.5 && b.slot_wait_ms == 4.5));
  CHECK((b.gpu_wait_ms == 5.5 && b.hand_back_ms == 6.5 && b.first_launch_ms == 7.5));
  CHECK((b.decode_call_ms == 8.5 && b.encode_call_ms == 9.5 && b.codec_start_ms == 10.5));
  CHECK((b.context_ready_at == 0.25 && b.codec_ready_at == 1.25 && b.first_stack_at == -1));
  CHECK((b.takes_codec && b.failure == a.failure));
}

TEST_CASE("a message cut short or padded is refused, not misread", "[lanes]") {
  std::vector<std::uint8_t> bytes = result_bytes(full_result());
  std::vector<std::uint8_t> cut(bytes.begin(), bytes.end() - 1);
  CHECK_THROWS_AS(result_from_bytes(cut), InternalError);
  bytes.push_back(0);
  CHECK_THROWS_AS(result_from_bytes(bytes), InternalError);
  CHECK_THROWS_AS(stats_from_bytes({1, 2, 3}), InternalError);
}
