// SPDX-License-Identifier: MIT
/// \file aztables.hpp
/// The one include a user needs.
#pragma once

#include <aztables/access_policy.hpp>
#include <aztables/batch.hpp>
#include <aztables/bulk.hpp>
#include <aztables/config.hpp>
#include <aztables/credentials.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>
#include <aztables/fan_out.hpp>
#include <aztables/json.hpp>
#include <aztables/keys.hpp>
#include <aztables/mapping.hpp>
#include <aztables/options.hpp>
#include <aztables/query.hpp>
#include <aztables/retry.hpp>
#include <aztables/sas.hpp>
#include <aztables/service_client.hpp>
#include <aztables/table_client.hpp>
#include <aztables/transport.hpp>
