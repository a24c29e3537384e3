// The headers a library of engram may not reach, as compile errors rather
// than a convention (ARCHITECTURE.md, "Layers").
//
// engram's own headers are kept apart by include roots: each layer's
// library publishes only its own folder (server/CMakeLists.txt), so a
// layer that includes a header of a layer it does not depend on fails with
// "No such file". System headers (SQLite, nlohmann/json, RE2, toml++, libuv) sit on
// the compiler's default path and cannot be hidden that way, so this file,
// force-included into every source of engram's libraries, poisons an
// identifier each of them declares: including one where it is not allowed
// stops the compile inside it. A library, or a single source, allowed one
// defines its ENGRAM_LAYER_ALLOWS_*.
#pragma once

#ifndef ENGRAM_LAYER_ALLOWS_SQLITE
#pragma GCC poison sqlite3_open_v2
#endif
#ifndef ENGRAM_LAYER_ALLOWS_JSON
#pragma GCC poison nlohmann
#endif
#ifndef ENGRAM_LAYER_ALLOWS_RE2
#pragma GCC poison re2
#endif
#ifndef ENGRAM_LAYER_ALLOWS_TOML
#pragma GCC poison toml
#endif
#ifndef ENGRAM_LAYER_ALLOWS_UV
#pragma GCC poison uv_loop_init
#endif
