// jpeg_route_test.cpp — what --codec auto chooses for a batch, from the pixels of its JPEGs.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "batch/jpeg_route.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "support/reference_blur.hpp"
#include "support/temp_dir.hpp"

using namespace gpublur;

namespace {

constexpr double kJpegPixels = 64.0 * 48.0;  // each JPEG the cases write

// `count` jobs whose inputs are, in turn, the files `inputs` names.
std::vector<Job> jobs_of(const std::vector<std::string>& inputs, std::size_t count) {
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < count; ++i)
    jobs.push_back(
        single_job(inputs[i % inputs.size()], "out" + std::to_string(i) + ".jpg", std::nullopt));
  return jobs;
}

struct Files {
  test::TempDir dir;
  std::string jpeg = dir.file("photo.jpg");
  std::string png = dir.file("drawing.png");
  Files() {
    write_image(test::random_image(64, 48, 3, 1), jpeg);
    write_image(test::random_image(64, 48, 3, 2), png);
  }
};

}  // namespace

TEST_CASE("cpu and gpu are what they say, whatever the batch", "[jpeg_route]") {
  const Files files;
  const std::vector<Job> jobs = jobs_of({files.jpeg}, 5000);
  CHECK(codec_for_batch(JpegCodec::kCpu, jobs, {}, 1).codec == JpegCodec::kCpu);
  CHECK(codec_for_batch(JpegCodec::kGpu, jobs_of({files.jpeg}, 1), {}).codec == JpegCodec::kGpu);
  CHECK_FALSE(starts_gpu_jpeg(JpegCodec::kGpu, 1));  // a single image: the worker's own nvJPEG
  CHECK(starts_gpu_jpeg(JpegCodec::kGpu, 2));
  CHECK(starts_gpu_jpeg(JpegCodec::kAuto, 2));
  CHECK_FALSE(starts_gpu_jpeg(JpegCodec::kCpu, 5000));
}

TEST_CASE("auto takes the GPU's codec from the batch's JPEG pixels on", "[jpeg_route]") {
  const Files files;
  const std::vector<Job> jobs = jobs_of({files.jpeg}, 1000);
  const BatchCodec at = codec_for_batch(JpegCodec::kAuto, jobs, {}, 1000 * kJpegPixels);
  CHECK(at.codec == JpegCodec::kAuto);
  CHECK(at.why ==
        "--codec auto: gpu, for about 0.00 gigapixels of JPEG (estimated from 8 files' "
        "headers; gpu from 0.00)");
  CHECK(codec_for_batch(JpegCodec::kAuto, jobs, {}, 1000 * kJpegPixels + 1).codec ==
        JpegCodec::kCpu);
  // The default: 1000 small JPEGs are far from paying for nvJPEG's start-up.
  const BatchCodec small = codec_for_batch(JpegCodec::kAuto, jobs, {});
  CHECK(small.codec == JpegCodec::kCpu);
  CHECK(small.why ==
        "--codec auto: cpu, for about 0.00 gigapixels of JPEG (estimated from 8 "
        "files' headers; gpu from 1.60)");
}

TEST_CASE("a batch starts nvJPEG on k GPUs from (k - 1) k / 2 times 8 gigapixels", "[jpeg_route]") {
  CHECK(gpus_for_jpeg(0, 8) == 1);
  CHECK(gpus_for_jpeg(-1, 8) == 1);
  CHECK(gpus_for_jpeg(4.1e9, 2) == 1);  // 2,000 1080p files: one GPU
  CHECK(gpus_for_jpeg(kGpuJpegSecondGpuPixels - 1, 2) == 1);
  CHECK(gpus_for_jpeg(kGpuJpegSecondGpuPixels, 2) == 2);
  CHECK(gpus_for_jpeg(20.7e9, 2) == 2);  // 10,000 1080p files: both of two
  CHECK(gpus_for_jpeg(20.7e9, 4) == 2);  // and two of four
  CHECK(gpus_for_jpeg(3 * kGpuJpegSecondGpuPixels - 1, 4) == 2);
  CHECK(gpus_for_jpeg(3 * kGpuJpegSecondGpuPixels, 4) == 3);
  CHECK(gpus_for_jpeg(41.5e9, 4) == 3);  // 20,000 1080p files: three of four
  CHECK(gpus_for_jpeg(6 * kGpuJpegSecondGpuPixels - 1, 4) == 3);
  CHECK(gpus_for_jpeg(6 * kGpuJpegSecondGpuPixels, 4) == 4);
  CHECK(gpus_for_jpeg(6 * kGpuJpegSecondGpuPixels, 3) == 3);  // never more than there are
  CHECK(gpus_for_jpeg(28 * kGpuJpegSecondGpuPixels - 1, 8) == 7);
  CHECK(gpus_for_jpeg(1e15, 8) == 8);
  CHECK(gpus_for_jpeg(1e300, 64) == 64);
  CHECK(gpus_for_jpeg(5e9, 0) == 1);
  CHECK(gpus_for_jpeg(5e9, 1) == 1);
  // The estimate it is given: for gpu and for auto where auto takes the GPU, not for cpu.
  const Files files;
  const std::vector<Job> jobs = jobs_of({files.jpeg}, 1000);
  CHECK(codec_for_batch(JpegCodec::kGpu, jobs, {}).pixels == 1000 * kJpegPixels);
  CHECK(codec_for_batch(JpegCodec::kGpu, jobs, {}).only_jpeg);
  CHECK(codec_for_batch(JpegCodec::kAuto, jobs, {}, 1).pixels == 1000 * kJpegPixels);
  CHECK(codec_for_batch(JpegCodec::kAuto, jobs, {}, 1).only_jpeg);
  const std::vector<Job> mixed = jobs_of({files.jpeg, files.png}, 1000);  // half PNGs
  CHECK(codec_for_batch(JpegCodec::kAuto, mixed, {}, 1).pixels == 500 * kJpegPixels);
  CHECK_FALSE(codec_for_batch(JpegCodec::kAuto, mixed, {}, 1).only_jpeg);
  CHECK_FALSE(codec_for_batch(JpegCodec::kGpu, mixed, {}).only_jpeg);
  CHECK(codec_for_batch(JpegCodec::kAuto, jobs, {}).pixels == 0);  // cpu: too few pixels
  CHECK(codec_for_batch(JpegCodec::kCpu, jobs, {}).pixels == 0);
}

TEST_CASE("auto counts only the JPEGs among the files it samples", "[jpeg_route]") {
  const Files files;
  // Every other file a PNG: of the 8 sampled (0, 12, 25, 37, 50, 62, 75, 87), 4 are JPEGs.
  const std::vector<Job> mixed = jobs_of({files.jpeg, files.png}, 100);
  CHECK(codec_for_batch(JpegCodec::kAuto, mixed, {}, 50 * kJpegPixels).codec == JpegCodec::kAuto);
  CHECK(codec_for_batch(JpegCodec::kAuto, mixed, {}, 50 * kJpegPixels + 1).codec ==
        JpegCodec::kCpu);
  // Files that cannot be read, standard input and damaged JPEGs count as none.
  const std::string damaged = files.dir.file("damaged.jpg");
  const std::vector<std::uint8_t> bytes = read_file(files.jpeg);
  std::ofstream(damaged, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), 40);
  const std::vector<Job> unread = jobs_of({files.dir.file("missing.jpg"), "-", damaged}, 100);
  CHECK(codec_for_batch(JpegCodec::kAuto, unread, {}, 1).codec == JpegCodec::kCpu);
  // A single image is cpu, however large, without a word.
  const BatchCodec single = codec_for_batch(JpegCodec::kAuto, jobs_of({files.jpeg}, 1), {}, 1);
  CHECK(single.codec == JpegCodec::kCpu);
  CHECK(single.why.empty());
}

TEST_CASE("auto reads each sampled header within the decode limits", "[jpeg_route]") {
  const Files files;
  DecodeLimits tight;
  tight.max_pixels = 1000;  // below the JPEG's 3072: its header is refused, and counts as none
  CHECK(codec_for_batch(JpegCodec::kAuto, jobs_of({files.jpeg}, 1000), tight, 1).codec ==
        JpegCodec::kCpu);
}

TEST_CASE("auto leaves a pipe's bytes for the pipeline", "[jpeg_route]") {
  const Files files;
  const std::string fifo = files.dir.file("stream.jpg");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Held open for reading and writing, so that neither end's open blocks; the JPEG waits inside.
  const int held = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  REQUIRE(held >= 0);
  const std::vector<std::uint8_t> jpeg = read_file(files.jpeg);
  REQUIRE(::write(held, jpeg.data(), jpeg.size()) == static_cast<ssize_t>(jpeg.size()));
  ::alarm(20);  // a codec_for_batch that read the pipe would wait for more: fail, not hang
  CHECK(codec_for_batch(JpegCodec::kAuto, jobs_of({fifo}, 1000), {}, 1).codec == JpegCodec::kCpu);
  ::alarm(0);
  std::vector<std::uint8_t> left(jpeg.size() + 1);
  CHECK(::read(held, left.data(), left.size()) == static_cast<ssize_t>(jpeg.size()));
  ::close(held);
}
