// What the CUDA part of the build can report without needing a device.
#pragma once

#include <string>

namespace tagmask::cuda {

/// Number of CUDA devices visible to this process; 0 when there is no driver or no GPU
/// (never an error). Only defined in builds with CUDA (TAGMASK_WITH_CUDA).
int DeviceCount() noexcept;

/// A one-line description of why DeviceCount() is 0, or the empty string when devices exist.
std::string DeviceStatus();

/// CUDA runtime version the kernels were built against, as major*1000 + minor*10.
int RuntimeVersion() noexcept;

}  // namespace tagmask::cuda
