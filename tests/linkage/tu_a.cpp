// SPDX-License-Identifier: MIT
#include "common.hpp"

std::string linkage::work_a() { return work(); }
