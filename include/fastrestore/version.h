// The fastrestore version string.
#pragma once

namespace fastrestore {
inline constexpr const char kVersion[] = "0.1.0";
}
