// tinygltf (Debian's libtinygltf-dev, a header library) as tandem compiles it: the same settings
// in every file that includes it, so its classes are one definition. tinygltf decodes no image
// and reads no image file (io::readGltf decodes the one texture it draws, after checking where
// its bytes lie) and writes nothing. Its namespace is renamed: Debian's libdraco.a carries a copy
// of tinygltf's implementation too (Draco's glTF tools, built with their own settings), and the
// two must not meet at link time.
#pragma once

#define tinygltf tandem_tinygltf
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <tiny_gltf.h>
