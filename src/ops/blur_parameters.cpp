// blur_parameters.cpp — parameters + channel count -> FilterSpec, through the Gaussian's front end.
#include "ops/blur_parameters.hpp"

#include "ops/gaussian.hpp"

namespace gpublur {

FilterSpec make_blur_spec(const BlurParameters& parameters, int channels) {
  FilterSpec spec;
  spec.x = gaussian_axis(parameters.size.x.size, parameters.size.x.sigma);
  spec.y = gaussian_axis(parameters.size.y.size, parameters.size.y.sigma);
  spec.channels = channels;
  spec.border = parameters.border;
  spec.border_value = parameters.border_value;
  return spec;
}

}  // namespace gpublur
