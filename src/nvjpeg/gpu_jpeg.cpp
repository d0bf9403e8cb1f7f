// gpu_jpeg.cpp — nvJPEG's handles, its batched decoder and its encoder, per worker and stream.
#include "nvjpeg/gpu_jpeg.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "gpu/cuda_driver.hpp"
#include "nvjpeg/nvjpeg_api.hpp"

namespace gpublur {
namespace {

const nvjpeg::Api& library() {
  std::string why;
  const nvjpeg::Api* api = nvjpeg::load(why);
  if (!api) throw GpuJpegError(why);
  return *api;
}

cudaStream_t runtime_stream(std::uintptr_t stream) {
  // The runtime's cudaStream_t and the driver's CUstream are the same handle.
  return reinterpret_cast<cudaStream_t>(stream);
}

nvjpegChromaSubsampling_t css_of(ChromaSubsampling s) {
  switch (s) {
    case ChromaSubsampling::k420:
      return NVJPEG_CSS_420;
    case ChromaSubsampling::k422:
      return NVJPEG_CSS_422;
    default:
      return NVJPEG_CSS_444;
  }
}

struct Handle {
  nvjpegHandle_t h = nullptr;
  Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (h) library().nvjpegDestroy(h);
  }
};

// A handle on `backend`, or null where nvJPEG refuses it (no hardware decoder on this GPU).
nvjpegStatus_t create(nvjpegBackend_t backend, unsigned flags, Handle& handle) {
  return library().nvjpegCreateEx(backend, nullptr, nullptr, flags, &handle.h);
}

}  // namespace

bool gpu_jpeg_available(std::string& why, std::string* what) {
  const nvjpeg::Api* api = nvjpeg::load(why);
  if (api && what) *what = api->path;
  return api != nullptr;
}

struct GpuJpegEngine::Impl {
  Handle decode;  // the batched decoder's
  Handle encode;  // the encoder's (the default backend: CUDA cores)
  std::string decoder;
};

GpuJpegEngine::GpuJpegEngine() : impl_(std::make_unique<Impl>()) {
  const nvjpeg::Api& nv = library();
  // Chroma upsampled by interpolation, as libjpeg-turbo's "fancy" upsampling does: the decoded
  // pixels are then within 1 level of libjpeg-turbo's (without it, far from them), at the same
  // speed.
  const unsigned flags = NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION;
  if (create(NVJPEG_BACKEND_HARDWARE, flags, impl_->decode) == NVJPEG_STATUS_SUCCESS) {
    impl_->decoder = "hardware";
  } else {
    impl_->decode.h = nullptr;
    GB_NVJPEG_CHECK(create(NVJPEG_BACKEND_GPU_HYBRID, flags, impl_->decode),
                    "starting nvJPEG's decoder");
    impl_->decoder = "gpu hybrid";
  }
  GB_NVJPEG_CHECK(nv.nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, nullptr, nullptr, 0, &impl_->encode.h),
                  "starting nvJPEG's encoder");
}

GpuJpegEngine::~GpuJpegEngine() = default;

const std::string& GpuJpegEngine::decoder() const { return impl_->decoder; }

// Encodes run on this many streams and threads at once (one 1080p encode leaves most of a GPU
// idle, and each call waits for its image), after the caller's stream's work.
constexpr std::size_t kEncodeStreams = 4;

struct GpuJpegDecoder::Impl {
  Impl(GpuJpegEngine::Impl& e, cudaStream_t s) : engine(e), stream(s) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  GpuJpegEngine::Impl& engine;
  cudaStream_t stream;
  nvjpegJpegState_t state = nullptr;  // the batched decoder's
  int batch = 0;                      // the batch size `state` is initialized for (0: none)
  nvjpegOutputFormat_t format = NVJPEG_OUTPUT_RGBI;
  // The largest image size `state`'s buffers were allocated for beforehand (0: none).
  unsigned allocated_width = 0, allocated_height = 0;
  nvjpegJpegStream_t parsed = nullptr;  // a header, parsed to ask what the decoder supports

  ~Impl() {
    const nvjpeg::Api& nv = library();
    if (parsed) nv.nvjpegJpegStreamDestroy(parsed);
    if (state) nv.nvjpegJpegStateDestroy(state);
  }
};

GpuJpegDecoder::GpuJpegDecoder(GpuJpegEngine& engine, std::uintptr_t stream)
    : impl_(std::make_unique<Impl>(*engine.impl_, runtime_stream(stream))) {
  const nvjpeg::Api& nv = library();
  nvjpegHandle_t decode = impl_->engine.decode.h;
  GB_NVJPEG_CHECK(nv.nvjpegJpegStateCreate(decode, &impl_->state), "starting nvJPEG's decoder");
  GB_NVJPEG_CHECK(nv.nvjpegJpegStreamCreate(decode, &impl_->parsed), "starting nvJPEG's decoder");
}

GpuJpegDecoder::~GpuJpegDecoder() = default;

void GpuJpegDecoder::initialize(std::size_t batch) {
  Impl& s = *impl_;
  const nvjpegStatus_t status = library().nvjpegDecodeBatchedInitialize(
      s.engine.decode.h, s.state, static_cast<int>(batch), 1, NVJPEG_OUTPUT_RGBI);
  s.batch = status == NVJPEG_STATUS_SUCCESS ? static_cast<int>(batch) : 0;
  s.format = NVJPEG_OUTPUT_RGBI;
  s.allocated_width = s.allocated_height = 0;
}

std::vector<std::size_t> GpuJpegDecoder::decode(const std::vector<CompressedImage>& jpegs,
                                                int channels, std::uintptr_t device,
                                                std::size_t pitch, std::size_t image_bytes,
                                                std::size_t batch, std::size_t spare) {
  const nvjpeg::Api& nv = library();
  Impl& s = *impl_;
  nvjpegHandle_t handle = s.engine.decode.h;
  std::vector<std::size_t> declined;
  std::vector<const unsigned char*> data;
  std::vector<std::size_t> lengths;
  std::vector<nvjpegImage_t> destinations;
  std::vector<std::size_t> taken;
  unsigned width = 0, height = 0;  // the first image's (a stack's images are one size)
  for (const CompressedImage& j : jpegs) {
    int unsupported = 1;
    if (nv.nvjpegJpegStreamParseHeader(handle, j.bytes->data(), j.bytes->size(), s.parsed) !=
            NVJPEG_STATUS_SUCCESS ||
        nv.nvjpegDecodeBatchedSupported(handle, s.parsed, &unsupported) != NVJPEG_STATUS_SUCCESS ||
        unsupported != 0) {
      declined.push_back(j.index);
      continue;
    }
    if (taken.empty() &&
        nv.nvjpegJpegStreamGetFrameDimensions(s.parsed, &width, &height) != NVJPEG_STATUS_SUCCESS) {
      width = height = 0;
    }
    nvjpegImage_t out{};
    out.channel[0] = reinterpret_cast<unsigned char*>(device + j.index * image_bytes);
    out.pitch[0] = pitch;
    data.push_back(j.bytes->data());
    lengths.push_back(j.bytes->size());
    destinations.push_back(out);
    taken.push_back(j.index);
  }
  if (taken.empty()) return declined;
  // Initializing sets the batch size (nvjpegDecodeBatched takes exactly that many) and allocates,
  // which synchronizes the whole GPU; so it is done once per slot and every batch is filled up to
  // that size with repeats of its first image, decoded into the caller's spare places.
  for (std::size_t i = 0; data.size() < batch; ++i) {  // repeats of the first, into spare places
    nvjpegImage_t out{};
    out.channel[0] = reinterpret_cast<unsigned char*>(device + (spare + i) * image_bytes);
    out.pitch[0] = pitch;
    data.push_back(data[0]);
    lengths.push_back(lengths[0]);
    destinations.push_back(out);
  }
  const int n = static_cast<int>(batch);
  const nvjpegOutputFormat_t format = channels == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_RGBI;
  nvjpegStatus_t status = NVJPEG_STATUS_SUCCESS;
  if (n != s.batch || format != s.format) {
    status = nv.nvjpegDecodeBatchedInitialize(handle, s.state, n, 1, format);
    s.batch = status == NVJPEG_STATUS_SUCCESS ? n : 0;
    s.format = format;
    s.allocated_width = s.allocated_height = 0;
  }
  // The hardware decoder's buffers, allocated beforehand: left to nvjpegDecodeBatched, they were
  // freed and allocated again within its calls (a large share of its host time, and each free
  // synchronizes the GPU). They only grow, and colour is allocated for 4:4:4, whose planes are
  // the largest, so that a folder mixing 4:2:0 and 4:4:4 photos (as cameras write them) does not
  // reallocate whenever a stack's first file changes. Where this fails, the decode allocates as
  // it goes: slower, not wrong.
  if (status == NVJPEG_STATUS_SUCCESS && width > 0 &&
      (width > s.allocated_width || height > s.allocated_height)) {
    s.allocated_width = std::max(width, s.allocated_width);
    s.allocated_height = std::max(height, s.allocated_height);
    (void)nv.nvjpegDecodeBatchedPreAllocate(
        handle, s.state, n, static_cast<int>(s.allocated_width),
        static_cast<int>(s.allocated_height),
        format == NVJPEG_OUTPUT_Y ? NVJPEG_CSS_GRAY : NVJPEG_CSS_444, format);
  }
  if (status == NVJPEG_STATUS_SUCCESS) {
    status = nv.nvjpegDecodeBatched(handle, s.state, data.data(), lengths.data(),
                                    destinations.data(), s.stream);
  }
  if (status != NVJPEG_STATUS_SUCCESS) {  // one bad file fails its batch: the CPU takes them all
    s.batch = 0;                          // and the state is initialized afresh
    declined.insert(declined.end(), taken.begin(), taken.end());
  }
  return declined;
}

// Threads that each run one lane's share of a round at once, in the CUDA context they were made
// in; lane 0 runs on the calling thread.
class LaneThreads {
 public:
  explicit LaneThreads(std::size_t lanes) {
    CUcontext context = nullptr;
    GB_CU_CHECK(cuda::api().cuCtxGetCurrent(&context), "starting the JPEG encoder's threads");
    for (std::size_t lane = 1; lane < lanes; ++lane)
      threads_.emplace_back([this, lane, context] { serve(lane, context); });
  }
  ~LaneThreads() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    started_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  LaneThreads(const LaneThreads&) = delete;
  LaneThreads& operator=(const LaneThreads&) = delete;

  /// Runs job(lane) for every lane at once; returns once all have. `job` must not throw.
  void run(const std::function<void(std::size_t)>& job) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      ++round_;
      running_ = threads_.size();
    }
    started_.notify_all();
    job(0);
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return running_ == 0; });
    job_ = nullptr;
  }

 private:
  void serve(std::size_t lane, CUcontext context) {
    const bool current = cuda::api().cuCtxSetCurrent(context) == CUDA_SUCCESS;
    std::uint64_t seen = 0;
    for (;;) {
      const std::function<void(std::size_t)>* job = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        started_.wait(lock, [&] { return stopping_ || round_ != seen; });
        if (stopping_) return;
        seen = round_;
        job = job_;
      }
      if (current) (*job)(lane);  // else its images keep the error set before the round
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        --running_;
      }
      finished_.notify_all();
    }
  }

  std::mutex mutex_;  // guards everything below but threads_
  std::condition_variable started_, finished_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::uint64_t round_ = 0;
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

struct GpuJpegEncoder::Impl {
  explicit Impl(GpuJpegEngine::Impl& e) : engine(e), threads(kEncodeStreams) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  GpuJpegEngine::Impl& engine;
  // One of each per lane: a lane's images are encoded one after another, each fetched (and so
  // done with its state) before the next starts. A state holds buffers sized for an image, so
  // one per image of a stack cost a GPU's encoder 32 of them in host and device memory, and
  // their start-up time.
  std::vector<nvjpegEncoderParams_t> params;
  std::vector<nvjpegEncoderState_t> states;
  std::vector<cuda::Stream> streams;
  cuda::Event started;  // the caller's stream reached the encodes
  LaneThreads threads;

  ~Impl() {
    const nvjpeg::Api& nv = library();
    for (nvjpegEncoderState_t e : states)
      if (e) nv.nvjpegEncoderStateDestroy(e);
    for (nvjpegEncoderParams_t p : params)
      if (p) nv.nvjpegEncoderParamsDestroy(p);
  }

  cudaStream_t lane(std::size_t index) const {
    return runtime_stream(reinterpret_cast<std::uintptr_t>(streams[index % kEncodeStreams].get()));
  }

  // Encodes image `index` of a round on its lane's stream and fetches it (both wait for it).
  EncodedImage encode_one(std::size_t index, const ImageToEncode& image) {
    const nvjpeg::Api& nv = library();
    nvjpegHandle_t handle = engine.encode.h;
    const cudaStream_t stream = lane(index);
    nvjpegEncoderParams_t p = params[index % kEncodeStreams];
    nvjpegEncoderState_t state = states[index % kEncodeStreams];
    const nvjpegChromaSubsampling_t css =
        image.channels == 1 ? NVJPEG_CSS_GRAY : css_of(image.settings.subsampling);
    GB_NVJPEG_CHECK(nv.nvjpegEncoderParamsSetQuality(p, image.settings.quality, stream),
                    "setting the JPEG quality");
    GB_NVJPEG_CHECK(nv.nvjpegEncoderParamsSetSamplingFactors(p, css, stream),
                    "setting the JPEG subsampling");
    nvjpegImage_t source{};
    source.channel[0] = reinterpret_cast<unsigned char*>(image.device);
    source.pitch[0] = image.pitch;
    if (image.channels == 1) {  // the gray image is the luma plane
      GB_NVJPEG_CHECK(nv.nvjpegEncodeYUV(handle, state, p, &source, NVJPEG_CSS_GRAY, image.width,
                                         image.height, stream),
                      "encoding a JPEG on the GPU");
    } else {
      GB_NVJPEG_CHECK(nv.nvjpegEncodeImage(handle, state, p, &source, NVJPEG_INPUT_RGBI,
                                           image.width, image.height, stream),
                      "encoding a JPEG on the GPU");
    }
    std::size_t length = 0;
    GB_NVJPEG_CHECK(nv.nvjpegEncodeRetrieveBitstream(handle, state, nullptr, &length, stream),
                    "fetching a JPEG from the GPU");
    EncodedImage out;
    out.bytes.resize(length);
    GB_NVJPEG_CHECK(
        nv.nvjpegEncodeRetrieveBitstream(handle, state, out.bytes.data(), &length, stream),
        "fetching a JPEG from the GPU");
    // The copy into `bytes` is ordered on the stream: wait for it before the bytes are read.
    streams[index % kEncodeStreams].synchronize("fetching a JPEG from the GPU");
    out.bytes.resize(length);
    return out;
  }
};

GpuJpegEncoder::GpuJpegEncoder(GpuJpegEngine& engine)
    : impl_(std::make_unique<Impl>(*engine.impl_)) {
  const nvjpeg::Api& nv = library();
  for (std::size_t i = 0; i < kEncodeStreams; ++i) {
    impl_->streams.emplace_back();
    nvjpegEncoderParams_t p = nullptr;
    GB_NVJPEG_CHECK(nv.nvjpegEncoderParamsCreate(impl_->engine.encode.h, &p, impl_->lane(i)),
                    "starting nvJPEG's encoder");
    impl_->params.push_back(p);
    nvjpegEncoderState_t e = nullptr;
    GB_NVJPEG_CHECK(nv.nvjpegEncoderStateCreate(impl_->engine.encode.h, &e, impl_->lane(i)),
                    "starting nvJPEG's encoder");
    impl_->states.push_back(e);
  }
}

GpuJpegEncoder::~GpuJpegEncoder() = default;

std::vector<EncodedImage> GpuJpegEncoder::encode(std::uintptr_t stream,
                                                const std::vector<ImageToEncode>& images) {
  Impl& s = *impl_;
  std::vector<EncodedImage> out(images.size());
  if (images.empty()) return out;
  GB_CU_CHECK(cuda::api().cuEventRecord(s.started.get(), reinterpret_cast<CUstream>(stream)),
              "ordering the JPEG encodes");
  for (const cuda::Stream& e : s.streams) s.started.wait_on(e);
  for (EncodedImage& e : out) e.error = "nvJPEG's encoder thread did not run";
  std::vector<std::exception_ptr> failed(kEncodeStreams);
  s.threads.run([&](std::size_t lane) {
    for (std::size_t i = lane; i < images.size(); i += kEncodeStreams) {
      try {
        out[i] = s.encode_one(i, images[i]);
      } catch (const GpuJpegError& e) {
        out[i].bytes.clear();
        out[i].error = e.what();
      } catch (...) {  // the GPU: the round fails
        failed[lane] = std::current_exception();
        return;
      }
    }
  });
  for (const std::exception_ptr& f : failed)
    if (f) std::rethrow_exception(f);
  return out;
}

}  // namespace gpublur
