// blur_parameters.cpp — parameters + channel count -> FilterSpec, through the operation's front
// end.
#include "ops/blur_parameters.hpp"

#include "ops/gaussian.hpp"

namespace gpublur {

FilterSpec make_blur_spec(const BlurParameters& parameters, int channels) {
  FilterSpec spec;
  spec.operation = parameters.operation;
  if (parameters.operation == Operation::kMatrix) {
    spec.matrix = make_matrix_numbers(parameters.matrix);
  } else {
    spec.x = gaussian_axis(parameters.size.x.size, parameters.size.x.sigma);
    spec.y = gaussian_axis(parameters.size.y.size, parameters.size.y.sigma);
  }
  if (parameters.operation == Operation::kUnsharp) {
    spec.unsharp = make_unsharp_numbers(parameters.unsharp);
  }
  spec.keep_alpha = parameters.operation != Operation::kGaussian &&
                    parameters.alpha == AlphaMode::kPremultiplied &&
                    (channels == 2 || channels == 4);
  spec.channels = channels;
  spec.border = parameters.border;
  spec.border_value = parameters.border_value;
  return spec;
}

}  // namespace gpublur
