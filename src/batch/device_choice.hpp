// device_choice.hpp — where a batch blurs (--device): the GPUs, the CPU, or the first that works.
#pragma once

#include "base/name_table.hpp"

namespace gpublur {

enum class DeviceChoice { kAuto, kGpu, kCpu };

inline constexpr NameTable<DeviceChoice, 3> kDeviceNames{{{
    {DeviceChoice::kAuto, "auto", "the first NVIDIA GPU, else the CPU (saying why)"},
    {DeviceChoice::kGpu, "gpu", "a GPU, or an error"},
    {DeviceChoice::kCpu, "cpu", "the CPU, byte-identical to the GPU"},
}}};

}  // namespace gpublur
