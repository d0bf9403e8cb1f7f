// blur_parameters.cpp — parameters + channel count -> BlurSpec.
#include "ops/blur_parameters.hpp"

namespace gpublur {

BlurSpec make_blur_spec(const BlurParameters& parameters, int channels) {
  BlurSpec spec;
  spec.x = make_weights(parameters.size.x.size, parameters.size.x.sigma);
  spec.y = make_weights(parameters.size.y.size, parameters.size.y.sigma);
  spec.channels = channels;
  spec.border = parameters.border;
  spec.border_value = parameters.border_value;
  return spec;
}

}  // namespace gpublur
