# gpublur_layer.cmake — one static library per folder of src/, in the layer order of
# docs/design.md: each links the layer below it (and so every layer under that), never one above,
# so the linker keeps the direction that tests/layers_test.py checks include by include.
#
#   gpublur_layer(NAME codecs BELOW image SOURCES png_decode.cpp ...)
function(gpublur_layer)
  cmake_parse_arguments(LAYER "" "NAME;BELOW" "SOURCES" ${ARGN})
  set(target gpublur_${LAYER_NAME})
  add_library(${target} STATIC ${LAYER_SOURCES})
  # Includes name their layer ("codecs/png_decode.hpp") from src/; kernels/ holds the headers
  # the host shares with NVRTC (arithmetic.cuh, border.cuh, ...).
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/kernels)
  if(LAYER_BELOW)
    target_link_libraries(${target} PUBLIC gpublur_${LAYER_BELOW})
  endif()
  # Floating-point sums must round exactly as the kernels' do (one rounding per multiply and per
  # add): never let the compiler fuse them, whatever -march a packager adds.
  target_compile_options(${target} PRIVATE ${GPUBLUR_WARNINGS} -ffp-contract=off)
  set_target_properties(${target} PROPERTIES COMPILE_WARNING_AS_ERROR ON)
endfunction()
