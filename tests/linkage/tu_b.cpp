// SPDX-License-Identifier: MIT
#include "common.hpp"

std::string linkage::work_b() { return work(); }
