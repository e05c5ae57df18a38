// NALMiddleware: the Middleware protocol and its built-ins land here. Until then the module is intentionally empty.
