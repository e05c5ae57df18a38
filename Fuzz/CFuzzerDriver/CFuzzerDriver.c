// The declaration in include/CFuzzerDriver.h is all this target provides; SwiftPM needs a source file.
#include "CFuzzerDriver.h"
