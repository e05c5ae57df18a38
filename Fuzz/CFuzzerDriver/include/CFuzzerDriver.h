// libFuzzer's driver, which the toolchain's fuzzer runtime (linked by -sanitize=fuzzer) provides. nal-fuzz calls it
// from its own entry point, since SwiftPM gives every executable a main of its own.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
