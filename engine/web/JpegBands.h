// One frame's JPEG encoded by several threads at once: the frame cut into bands of whole MCU rows,
// each band encoded alone (libjpeg-turbo's default tables, no restart markers), then joined into
// one baseline JPEG whose restart interval is a band, so the browser decodes one image and its
// pixels equal those of the frame encoded whole. CPU only, any thread.
#pragma once

#include <string>
#include <vector>

#include "engine/core/Result.h"

namespace tandem::web {

/// The rows of each band of a `width`×`height` frame shared by `parts` encoders: a multiple of 16
/// (a 4:2:0 MCU), at least 64 (fewer bands on small frames), a band at most 65535 MCUs (the
/// restart interval's limit). The last band takes what is left.
int bandRows(int width, int height, int parts);

/// Joins `bands` (JPEGs of the frame's consecutive bands, `rows` rows each but the last, all of
/// `width` columns, encoded alike) into one JPEG `height` rows high. Fails, saying what is wrong,
/// when a band is not such a JPEG or its tables differ from the first's.
Result<std::string> joinBands(const std::vector<std::string>& bands, int width, int height,
                              int rows);

} // namespace tandem::web
