// NALLogging: the OSLog-style logger (issue 4) lands here. Until then the module is intentionally empty.
