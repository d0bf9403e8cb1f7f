// gpu_jpeg.cpp — nvJPEG's handles, its batched decoder and its encoder, per worker and stream.
#include "gpu_jpeg.hpp"

#include "cuda_driver.hpp"
#include "nvjpeg_api.hpp"

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
  // Chroma upsampled by interpolation, as libjpeg-turbo's "fancy" upsampling does: on an H100
  // the decoded pixels are then within 1 level of libjpeg-turbo's (without it, up to 51), at the
  // same speed (bench/RESULTS.md).
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

// Encodes run on this many streams at once (one 1080p encode leaves most of a GPU idle), forked
// from the slot's stream after the blur and joined back before its end.
constexpr std::size_t kEncodeStreams = 4;

struct GpuJpegSlot::Impl {
  Impl(GpuJpegEngine::Impl& e, cudaStream_t s) : engine(e), stream(s) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  GpuJpegEngine::Impl& engine;
  cudaStream_t stream;
  nvjpegJpegState_t state = nullptr;  // the batched decoder's
  int batch = 0;                      // the batch size `state` is initialized for (0: none)
  nvjpegOutputFormat_t format = NVJPEG_OUTPUT_RGBI;
  // The image size and subsampling `state`'s buffers were allocated for beforehand (0: none).
  unsigned allocated_width = 0, allocated_height = 0;
  nvjpegChromaSubsampling_t allocated_css = NVJPEG_CSS_UNKNOWN;
  nvjpegJpegStream_t parsed = nullptr;        // a header, parsed to ask what the decoder supports
  std::vector<nvjpegEncoderParams_t> params;  // one per encode stream
  std::vector<nvjpegEncoderState_t> encoders;
  std::vector<cuda::Stream> encode_streams;
  cuda::Event blurred;               // the slot's stream reached the encodes
  std::vector<cuda::Event> encoded;  // each encode stream's end
  bool forked = false;               // encodes enqueued since the last join

  ~Impl() {
    const nvjpeg::Api& nv = library();
    for (nvjpegEncoderState_t e : encoders)
      if (e) nv.nvjpegEncoderStateDestroy(e);
    for (nvjpegEncoderParams_t p : params)
      if (p) nv.nvjpegEncoderParamsDestroy(p);
    if (parsed) nv.nvjpegJpegStreamDestroy(parsed);
    if (state) nv.nvjpegJpegStateDestroy(state);
  }

  CUstream driver_stream() const { return reinterpret_cast<CUstream>(stream); }
};

GpuJpegSlot::GpuJpegSlot(GpuJpegEngine& engine, std::uintptr_t stream)
    : impl_(std::make_unique<Impl>(*engine.impl_, runtime_stream(stream))) {
  const nvjpeg::Api& nv = library();
  nvjpegHandle_t decode = impl_->engine.decode.h;
  GB_NVJPEG_CHECK(nv.nvjpegJpegStateCreate(decode, &impl_->state), "starting nvJPEG's decoder");
  GB_NVJPEG_CHECK(nv.nvjpegJpegStreamCreate(decode, &impl_->parsed), "starting nvJPEG's decoder");
  for (std::size_t i = 0; i < kEncodeStreams; ++i) {
    impl_->encode_streams.emplace_back();
    impl_->encoded.emplace_back();
    nvjpegEncoderParams_t p = nullptr;
    GB_NVJPEG_CHECK(nv.nvjpegEncoderParamsCreate(impl_->engine.encode.h, &p, impl_->stream),
                    "starting nvJPEG's encoder");
    impl_->params.push_back(p);
  }
}

GpuJpegSlot::~GpuJpegSlot() = default;

std::vector<std::size_t> GpuJpegSlot::decode(const std::vector<JpegToDecode>& jpegs, int channels,
                                             std::uintptr_t device, std::size_t pitch,
                                             std::size_t image_bytes, std::size_t batch,
                                             std::size_t spare) {
  const nvjpeg::Api& nv = library();
  Impl& s = *impl_;
  nvjpegHandle_t handle = s.engine.decode.h;
  std::vector<std::size_t> declined;
  std::vector<const unsigned char*> data;
  std::vector<std::size_t> lengths;
  std::vector<nvjpegImage_t> destinations;
  std::vector<std::size_t> taken;
  unsigned width = 0, height = 0;  // the first image's (a stack's images are one size)
  nvjpegChromaSubsampling_t css = NVJPEG_CSS_UNKNOWN;
  for (const JpegToDecode& j : jpegs) {
    int unsupported = 1;
    if (nv.nvjpegJpegStreamParseHeader(handle, j.bytes->data(), j.bytes->size(), s.parsed) !=
            NVJPEG_STATUS_SUCCESS ||
        nv.nvjpegDecodeBatchedSupported(handle, s.parsed, &unsupported) != NVJPEG_STATUS_SUCCESS ||
        unsupported != 0) {
      declined.push_back(j.index);
      continue;
    }
    if (taken.empty() &&
        (nv.nvjpegJpegStreamGetFrameDimensions(s.parsed, &width, &height) !=
             NVJPEG_STATUS_SUCCESS ||
         nv.nvjpegJpegStreamGetChromaSubsampling(s.parsed, &css) != NVJPEG_STATUS_SUCCESS)) {
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
    s.allocated_width = 0;
  }
  // The hardware decoder's buffers, allocated for the stack's image size beforehand: left to
  // nvjpegDecodeBatched, they were freed and allocated again within its calls (a third of its
  // host time on an H100, and each free synchronizes the GPU). Where this fails, the decode
  // allocates as it goes: slower, not wrong.
  if (status == NVJPEG_STATUS_SUCCESS && width > 0 &&
      (width != s.allocated_width || height != s.allocated_height || css != s.allocated_css)) {
    (void)nv.nvjpegDecodeBatchedPreAllocate(handle, s.state, n, static_cast<int>(width),
                                            static_cast<int>(height), css, format);
    s.allocated_width = width;
    s.allocated_height = height;
    s.allocated_css = css;
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

void GpuJpegSlot::encode(std::size_t index, std::uintptr_t device, std::size_t pitch, int width,
                         int height, int channels, const JpegEncodeSettings& settings) {
  const nvjpeg::Api& nv = library();
  Impl& s = *impl_;
  nvjpegHandle_t handle = s.engine.encode.h;
  while (s.encoders.size() <= index) {
    nvjpegEncoderState_t e = nullptr;
    GB_NVJPEG_CHECK(nv.nvjpegEncoderStateCreate(handle, &e, s.stream), "starting nvJPEG's encoder");
    s.encoders.push_back(e);
  }
  if (!s.forked) {  // the first encode since the blur: the encode streams wait for it
    GB_CU_CHECK(cuda::api().cuEventRecord(s.blurred.get(), s.driver_stream()),
                "ordering the JPEG encodes");
    for (const cuda::Stream& e : s.encode_streams) s.blurred.wait_on(e);
    s.forked = true;
  }
  const std::size_t lane = index % kEncodeStreams;
  const cudaStream_t stream =
      runtime_stream(reinterpret_cast<std::uintptr_t>(s.encode_streams[lane].get()));
  nvjpegEncoderParams_t params = s.params[lane];
  const nvjpegChromaSubsampling_t css =
      channels == 1 ? NVJPEG_CSS_GRAY : css_of(settings.subsampling);
  GB_NVJPEG_CHECK(nv.nvjpegEncoderParamsSetQuality(params, settings.quality, stream),
                  "setting the JPEG quality");
  GB_NVJPEG_CHECK(nv.nvjpegEncoderParamsSetSamplingFactors(params, css, stream),
                  "setting the JPEG subsampling");
  nvjpegImage_t source{};
  source.channel[0] = reinterpret_cast<unsigned char*>(device);
  source.pitch[0] = pitch;
  if (channels == 1) {  // the gray image is the luma plane
    GB_NVJPEG_CHECK(nv.nvjpegEncodeYUV(handle, s.encoders[index], params, &source, NVJPEG_CSS_GRAY,
                                       width, height, stream),
                    "encoding a JPEG on the GPU");
  } else {
    GB_NVJPEG_CHECK(nv.nvjpegEncodeImage(handle, s.encoders[index], params, &source,
                                         NVJPEG_INPUT_RGBI, width, height, stream),
                    "encoding a JPEG on the GPU");
  }
}

void GpuJpegSlot::join() {
  Impl& s = *impl_;
  if (!s.forked) return;
  for (std::size_t i = 0; i < kEncodeStreams; ++i) {
    s.encoded[i].record(s.encode_streams[i]);
    GB_CU_CHECK(cuda::api().cuStreamWaitEvent(s.driver_stream(), s.encoded[i].get(), 0),
                "ordering the JPEG encodes");
  }
  s.forked = false;
}

std::vector<std::uint8_t> GpuJpegSlot::encoded(std::size_t index) {
  const nvjpeg::Api& nv = library();
  Impl& s = *impl_;
  if (index >= s.encoders.size()) throw InternalError("no JPEG was encoded in this place");
  nvjpegHandle_t handle = s.engine.encode.h;
  const cuda::Stream& lane = s.encode_streams[index % kEncodeStreams];
  const cudaStream_t stream = runtime_stream(reinterpret_cast<std::uintptr_t>(lane.get()));
  std::size_t length = 0;
  GB_NVJPEG_CHECK(
      nv.nvjpegEncodeRetrieveBitstream(handle, s.encoders[index], nullptr, &length, stream),
      "fetching a JPEG from the GPU");
  std::vector<std::uint8_t> bytes(length);
  GB_NVJPEG_CHECK(
      nv.nvjpegEncodeRetrieveBitstream(handle, s.encoders[index], bytes.data(), &length, stream),
      "fetching a JPEG from the GPU");
  // The copy into `bytes` is ordered on the stream: wait for it before the bytes are read.
  lane.synchronize("fetching a JPEG from the GPU");
  bytes.resize(length);
  return bytes;
}

}  // namespace gpublur
