// make_samples.cpp — writes the sample images in samples/ (run: cmake --build build --target
// samples). Everything is drawn here, so the project owns its test pictures.
#include <cmath>
#include <cstdio>
#include <string>

#include "codecs/image_encode.hpp"
#include "cpu/cpu_blur.hpp"
#include "ops/gaussian.hpp"

using namespace gpublur;

namespace {

constexpr int kW = 512;
constexpr int kH = 320;
constexpr double kPi = 3.14159265358979323846;

std::uint8_t to_byte(double v) {
  return static_cast<std::uint8_t>(std::lround(std::fmin(std::fmax(v, 0.0), 255.0)));
}

void set(Image& im, int x, int y, int c, double v) {
  im.pixels[(static_cast<std::size_t>(y) * static_cast<std::size_t>(im.width) +
             static_cast<std::size_t>(x)) *
                static_cast<std::size_t>(im.channels) +
            static_cast<std::size_t>(c)] = to_byte(v);
}

// Smooth colour ramps: banding or a colour shift shows up at once.
Image gradient() {
  Image im = make_image(kW, kH, 3);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      set(im, x, y, 0, 255.0 * x / (kW - 1));
      set(im, x, y, 1, 255.0 * y / (kH - 1));
      set(im, x, y, 2, 127.5 + 127.5 * std::sin(2 * kPi * (x + y) / 400.0));
    }
  return im;
}

// 16-bit RGB ramps, smooth enough that an 8-bit blur would show banding.
Image16 gradient16() {
  Image16 im = make_raster<std::uint16_t>(kW, kH, 3);
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      const std::size_t i = (static_cast<std::size_t>(y) * kW + static_cast<std::size_t>(x)) * 3;
      im.pixels[i] = static_cast<std::uint16_t>(65535.0 * x / (kW - 1));
      im.pixels[i + 1] = static_cast<std::uint16_t>(20000 + 8000.0 * std::sin(x / 40.0 + y / 30.0));
      im.pixels[i + 2] = static_cast<std::uint16_t>(65535.0 * y / (kH - 1));
    }
  }
  return im;
}

// HDR (linear light, floats): dim sky gradient with two lamps far brighter than 1.0, whose
// glow a blur must spread without clipping.
ImageF glow() {
  constexpr int w = 160, h = 100;
  ImageF im = make_raster<float>(w, h, 3);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      float* p = &im.pixels[(static_cast<std::size_t>(y) * w + static_cast<std::size_t>(x)) * 3];
      p[0] = 0.02f + 0.1f * static_cast<float>(y) / h;
      p[1] = 0.03f + 0.1f * static_cast<float>(y) / h;
      p[2] = 0.08f + 0.2f * static_cast<float>(y) / h;
      if ((x - 50) * (x - 50) + (y - 40) * (y - 40) < 16) p[0] = 40.0f, p[1] = 30.0f, p[2] = 10.0f;
      if (x > 110 && x < 114 && y > 30 && y < 70) p[0] = 2.0f, p[1] = 8.0f, p[2] = 16.0f;
    }
  }
  return im;
}

// Gray hard edges: a disc, a square, one-pixel lines, a checkerboard band.
Image edges() {
  Image im = make_image(kW, kH, 1);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      double v = 30;
      if ((x - 130) * (x - 130) + (y - 160) * (y - 160) < 90 * 90) v = 230;
      if (x > 270 && x < 450 && y > 70 && y < 250) v = 120;
      if (x % 32 == 0 || y % 40 == 0) v = 255;
      if (y > 285 && ((x / 8 + y / 8) % 2 == 0)) v = 0;
      set(im, x, y, 0, v);
    }
  return im;
}

// Fine detail: a colour zone plate, whose frequency rises toward the corners.
Image detail() {
  Image im = make_image(kW, kH, 3);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const double dx = x - kW / 2.0, dy = y - kH / 2.0, r2 = dx * dx + dy * dy;
      set(im, x, y, 0, 127.5 + 127.5 * std::cos(r2 / 180.0));
      set(im, x, y, 1, 127.5 + 127.5 * std::cos(r2 / 260.0 + 1.0));
      set(im, x, y, 2, 127.5 + 127.5 * std::cos(dx / 3.0));
    }
  return im;
}

// RGBA: an opaque red disc and a half-transparent blue bar on a fully transparent background
// whose hidden colour is green (it must not bleed into visible pixels).
Image alpha() {
  Image im = make_image(kW, kH, 4);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      double r = 0, g = 255, b = 0, a = 0;
      if ((x - 180) * (x - 180) + (y - 160) * (y - 160) < 100 * 100)
        r = 230, g = 20, b = 20, a = 255;
      if (x > 300 && x < 460 && y > 110 && y < 210) r = 20, g = 40, b = 230, a = 128;
      set(im, x, y, 0, r), set(im, x, y, 1, g), set(im, x, y, 2, b), set(im, x, y, 3, a);
    }
  return im;
}

// Left half of `image` as it is, right half blurred, side by side with a white rule.
Image before_after(const Image& image, int size, double sigma) {
  BlurSpec spec;
  spec.x = gaussian_axis(size, sigma);
  spec.y = spec.x;
  spec.channels = image.channels;
  const Image blurred = blur_on_cpu(image, spec);
  Image out = make_image(image.width * 2 + 4, image.height, image.channels);
  const std::size_t c = static_cast<std::size_t>(image.channels);
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < out.width; ++x) {
      for (std::size_t k = 0; k < c; ++k) {
        const std::size_t dst = (static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) +
                                 static_cast<std::size_t>(x)) *
                                    c +
                                k;
        if (x < image.width) {
          out.pixels[dst] =
              image.pixels[(static_cast<std::size_t>(y) * static_cast<std::size_t>(image.width) +
                            static_cast<std::size_t>(x)) *
                               c +
                           k];
        } else if (x < image.width + 4) {
          out.pixels[dst] = 255;
        } else {
          const auto sx = static_cast<std::size_t>(x - image.width - 4);
          out.pixels[dst] =
              blurred.pixels[(static_cast<std::size_t>(y) * static_cast<std::size_t>(image.width) +
                              sx) *
                                 c +
                             k];
        }
      }
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "samples";
  try {
    write_image(gradient(), dir + "/gradient.png");
    write_image(gradient16(), dir + "/gradient16.png");
    write_image(glow(), dir + "/glow.hdr");
    write_image(edges(), dir + "/edges.png");
    write_image(detail(), dir + "/detail.png");
    write_image(alpha(), dir + "/alpha.png");
    write_image(before_after(detail(), 15, 3.0), dir + "/before_after.png");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_samples: %s\n", e.what());
    return 1;
  }
  return 0;
}
