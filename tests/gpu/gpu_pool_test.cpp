// gpu_pool_test.cpp — [gpu] the batch's GPU stage: images handed to a pool of workers from many
// threads at once (two workers on the one GPU, as --devices 0,0 makes: the multi-GPU scheduling
// on any machine), stacked into shared launches, come back with the CPU's bytes; the whole
// pipeline on the GPU writes the files the CPU writes; auto blurs on the CPU only while starting.
#include <catch2/catch.hpp>

#include <algorithm>
#include <future>
#include <thread>

#include "batch/blur_device.hpp"
#include "batch/pipeline.hpp"
#include "codecs/image_decode.hpp"
#include "codecs/image_encode.hpp"
#include "cpu/cpu_blur.hpp"
#include "gpu/gpu_pool.hpp"
#include "gpu/test_gpu.hpp"
#include "support/reference_blur.hpp"
#include "support/temp_dir.hpp"

using namespace gpublur;
using test::gpu;

namespace {

// A prepared image of random samples: 8-bit of `channels`, or 16-bit where `sixteen`.
PreparedImage prepared(int width, int height, int channels, bool sixteen, std::uint32_t seed,
                       const BlurParameters& p) {
  DecodedImage d;
  if (sixteen) {
    d.image = test::random_image16(width, height, channels, seed);
  } else {
    d.image = test::random_image(width, height, channels, seed);
  }
  return prepare_image(std::move(d), p, ImageFormat::kPng);
}

class Collect final : public FileObserver {
 public:
  void file_done(const FileResult& r) override { results.push_back(r); }
  std::vector<FileResult> results;
};

}  // namespace

TEST_CASE("a pool of two workers on one GPU: many threads, stacked launches, the CPU's bytes",
          "[gpu][pool]") {
  KernelLibrary kernels(KernelChoices{}, [](const std::string&, bool) {});
  GpuPool pool({gpu(), gpu()}, kernels);
  std::string why;
  REQUIRE(pool.wait_ready(why));
  const BlurParameters p = test::make_test_parameters(7, 1.5);
  // 48 images: three shapes and kernels (RGB, gray, 16-bit RGBA with transparency), in a burst
  // from 16 threads, so that images of one kind wait together while a kernel compiles.
  struct Job {
    PreparedImage image;
    PreparedImage expected;
    GpuBlurTimes times;
  };
  std::vector<Job> jobs;
  for (int i = 0; i < 48; ++i) {
    const int kind = i % 3;
    PreparedImage image = kind == 0 ? prepared(257, 130, 3, false, static_cast<std::uint32_t>(i), p)
                          : kind == 1
                              ? prepared(64, 311, 1, false, static_cast<std::uint32_t>(i), p)
                              : prepared(99, 45, 4, true, static_cast<std::uint32_t>(i), p);
    PreparedImage expected = image;
    expected.image.visit([&](auto& r) { r = blur_on_cpu(r, expected.spec); });
    jobs.push_back({std::move(image), std::move(expected), {}});
  }
  std::vector<std::future<void>> threads;
  std::atomic<std::size_t> next{0};
  for (int t = 0; t < 16; ++t) {
    threads.push_back(std::async(std::launch::async, [&] {
      for (std::size_t i; (i = next++) < jobs.size();) {
        jobs[i].times = test::pool_blur(pool, jobs[i].image);
      }
    }));
  }
  for (auto& t : threads) t.get();
  int most_stacked = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    CAPTURE(i);
    if (jobs[i].image.image.holds<Image>()) {
      CHECK(jobs[i].image.image.get<Image>().pixels == jobs[i].expected.image.get<Image>().pixels);
    } else {
      CHECK(jobs[i].image.image.get<Image16>().pixels ==
            jobs[i].expected.image.get<Image16>().pixels);
    }
    most_stacked = std::max(most_stacked, jobs[i].times.stacked);
  }
  CHECK(most_stacked > 1);
  long images = 0, launches = 0;
  for (const GpuWorkerStats& s : pool.stats()) {
    images += s.images;
    launches += s.launches;
    CHECK(s.failure.empty());
  }
  CHECK(images == 48);
  CHECK(launches < 48);
  CHECK(pool.stats().size() == 2);
}

TEST_CASE("the pipeline on the GPU writes the files it writes on the CPU", "[gpu][pool]") {
  const test::TempDir dir;
  std::vector<Job> gpu_jobs, cpu_jobs;
  for (int i = 0; i < 12; ++i) {
    const std::string name = "in" + std::to_string(i) + ".png";
    const int channels = 1 + i % 4;
    Image image =
        test::random_image(40 + 13 * i, 30 + 7 * i, channels, static_cast<std::uint32_t>(i));
    if (channels == 2 || channels == 4)
      image.pixels[static_cast<std::size_t>(channels) - 1] = 7;  // transparency
    write_image(image, dir.file(name));
    gpu_jobs.push_back(single_job(dir.file(name), dir.file("gpu/" + name), std::nullopt));
    cpu_jobs.push_back(single_job(dir.file(name), dir.file("cpu/" + name), std::nullopt));
  }
  PipelineSettings settings;
  settings.blur = test::make_test_parameters(9, 2.0);
  for (const auto& [choice, jobs] :
       {std::pair{DeviceChoice::kGpu, gpu_jobs}, std::pair{DeviceChoice::kCpu, cpu_jobs}}) {
    KernelLibrary kernels(KernelChoices{}, [](const std::string&, bool) {});
    BlurDevice device(choice, {0, 0}, jobs.size(), kernels, [](const std::string&) {});
    Collect collect;
    run_pipeline(jobs, settings, device, collect);
    REQUIRE(collect.results.size() == jobs.size());
    for (const FileResult& r : collect.results) {
      CAPTURE(r.job.input, r.error);
      CHECK(r.status == FileResult::Status::kDone);
      CHECK(r.device == (choice == DeviceChoice::kGpu ? "gpu" : "cpu"));
    }
  }
  for (std::size_t i = 0; i < gpu_jobs.size(); ++i) {
    CAPTURE(i);
    CHECK(read_file(gpu_jobs[i].output) == read_file(cpu_jobs[i].output));
  }
}

TEST_CASE("raw PNMs on the GPU, read into and written from their rasters: the CPU's bytes",
          "[gpu][pool]") {
  // An image of 34 MiB (a raster in huge pages, large_buffer.hpp) and smaller ones, each pinned
  // where it lies; 8 and 16 bits, 1 to 4 channels.
  const test::TempDir dir;
  struct Raw {
    const char* name;
    AnyImage image;
  };
  Raw raws[] = {{"big.ppm", test::random_image(4100, 2900, 3, 1)},
                {"ga16.pam", test::random_image16(301, 203, 2, 2)},
                {"rgba16.pam", test::random_image16(640, 481, 4, 3)},
                {"gray.pgm", test::random_image(999, 77, 1, 4)}};
  std::vector<Job> gpu_jobs, cpu_jobs;
  for (Raw& raw : raws) {
    raw.image.visit([&](const auto& r) { write_image(r, dir.file(raw.name)); });
    gpu_jobs.push_back(single_job(dir.file(raw.name), dir.file(std::string("gpu/") + raw.name),
                                  std::nullopt));
    cpu_jobs.push_back(single_job(dir.file(raw.name), dir.file(std::string("cpu/") + raw.name),
                                  std::nullopt));
  }
  PipelineSettings settings;
  settings.blur = test::make_test_parameters(9, 2.0);
  for (const auto& [choice, jobs] :
       {std::pair{DeviceChoice::kGpu, gpu_jobs}, std::pair{DeviceChoice::kCpu, cpu_jobs}}) {
    KernelLibrary kernels(KernelChoices{}, [](const std::string&, bool) {});
    BlurDevice device(choice, {0}, jobs.size(), kernels, [](const std::string&) {});
    Collect collect;
    run_pipeline(jobs, settings, device, collect);
    REQUIRE(collect.results.size() == jobs.size());
    for (const FileResult& r : collect.results) {
      CAPTURE(r.job.input, r.error);
      CHECK(r.status == FileResult::Status::kDone);
      CHECK(r.device == (choice == DeviceChoice::kGpu ? "gpu" : "cpu"));
      const bool decoded = std::any_of(r.stages.begin(), r.stages.end(),
                                       [](const auto& stage) { return stage.first == "decode"; });
      CHECK_FALSE(decoded);  // read straight into the raster
      // The large one pinned where it lies (its own mapping; small ones may share a page with
      // another image being pinned, which the driver refuses the second: then copied unpinned).
      if (choice == DeviceChoice::kGpu && r.job.input == dir.file("big.ppm")) {
        for (const std::string& note : r.notes) {
          CAPTURE(note);
          CHECK(note.find("could not be pinned") == std::string::npos);
        }
      }
    }
  }
  for (std::size_t i = 0; i < gpu_jobs.size(); ++i) {
    CAPTURE(gpu_jobs[i].input);
    const std::vector<std::uint8_t> bytes = read_file(gpu_jobs[i].output);
    CHECK(bytes == read_file(cpu_jobs[i].output));
    // And the file the encoder would have written of the CPU's blur of the decoder's image.
    PreparedImage expected = prepare_image(read_image(gpu_jobs[i].input), settings.blur,
                                           ImageFormat::kPnm);
    expected.image.visit([&](auto& r) { r = blur_on_cpu(r, expected.spec); });
    CHECK(bytes == expected.image.visit(
                       [](const auto& r) { return encode_image(r, ImageFormat::kPnm); }));
  }
}

TEST_CASE("auto blurs on the CPU while the GPUs start, and on the GPU once they have",
          "[gpu][pool]") {
  const BlurParameters p = test::make_test_parameters(7, 1.5);
  KernelLibrary kernels(KernelChoices{}, [](const std::string&, bool) {});
  BlurDevice device(DeviceChoice::kAuto, {0}, 2, kernels, [](const std::string&) {});
  PreparedImage early = prepared(61, 37, 3, false, 5, p);
  const Image input = early.image.get<Image>();
  FileResult early_result;
  // Usually still starting (a context takes a tenth of a second or more); where not, it says so
  // and leaves the image as it was.
  if (device.blur_on_cpu_while_starting(early, early_result)) {
    CHECK(early_result.device == "cpu");
    CHECK(std::find(early_result.notes.begin(), early_result.notes.end(),
                    "blurred on the CPU while the GPUs started") != early_result.notes.end());
    CHECK(early.image.get<Image>().pixels == blur_on_cpu(input, early.spec).pixels);
  } else {
    CHECK(early.image.get<Image>().pixels == input.pixels);
  }
  std::string why;
  REQUIRE(device.gpus(why) != nullptr);
  CHECK_FALSE(device.starting());
  PreparedImage late = prepared(61, 37, 3, false, 6, p);
  const Image late_input = late.image.get<Image>();
  FileResult late_result;
  CHECK_FALSE(device.blur_on_cpu_while_starting(late, late_result));  // started: not the CPU's
  CHECK(late.image.get<Image>().pixels == late_input.pixels);
  device.blur(late, kernel_key(late), late_result);
  CHECK(late_result.device == "gpu");
  CHECK(late.image.get<Image>().pixels == blur_on_cpu(late_input, late.spec).pixels);
}
