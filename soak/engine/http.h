/*
 * http — the engine's HTTP driver on libcurl's multi interface (see engine_int.h for the
 * driver contract).  How a finished transfer is classed lives in httpclass.h, shared with
 * the lean driver.
 */
#ifndef SOAK_HTTP_H
#define SOAK_HTTP_H

#include "httpclass.h"

#endif
