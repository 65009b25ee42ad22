#!/usr/bin/env bash
# Regenerates the gl tier's reference images (tests/**/references/*.png) by rendering on this
# machine's headless EGL (llvmpipe without a GPU). Run after an intended rendering change and
# review the images before committing them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default
# Every test that compares with a reference image (test::compareWithReference).
TANDEM_UPDATE_REFERENCES=1 ctest --test-dir build -L gl -R '^(Render|PostfxHost|Stream)\.' \
    --output-on-failure
git status --short -- tests
