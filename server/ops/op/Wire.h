// Wire forms of engine types that several operations' shapes hold
// (protocol/Shape.h), one header per feature under op/wire/: declared once
// as shapes, or written by hand where the type's JSON has rules of its own
// (an anchor as a caller names it comes in alternatives).
#pragma once
#include "ops/op/wire/Calls.h"
#include "ops/op/wire/Claim.h"
#include "ops/op/wire/Common.h"
#include "ops/op/wire/Envelope.h"
#include "ops/op/wire/Findings.h"
#include "ops/op/wire/Reports.h"
