// The .tdpk pack: a volumetric sequence in one file made for streaming. Its format
// (PackFormat.h), reading and verifying (PackReader.h) and writing (PackWriter.h); compression
// and u16 positions are private to them (detail/PackCodec.h, detail/PackQuantization.h).
// No GL; any thread.
#pragma once

#include "engine/stream/PackFormat.h"
#include "engine/stream/PackReader.h"
#include "engine/stream/PackWriter.h"
