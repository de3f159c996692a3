/*
 * scenario_frame — the tcp-frame part of a scenario file (see frame.h for the wire format).
 *
 *   [request]
 *   protocol  = tcp-frame            ; or http (the default)
 *   address   = 127.0.0.1:7000       ; host:port, or [v6]:port
 *   timeout   = 5s                   ; each of connect, handshake and iteration
 *   max_frame = 1M                   ; longest reply accepted (bytes, k or M), default 1M
 *
 *   [handshake]                      ; optional: sent once per connection, one reply read
 *   text   = {"T":"Connect",...}     ; or file = frames/connect.json (relative to the file)
 *   type   = 1                       ; 0..65535, default 1 (UTF-8 JSON text)
 *   expect = "T":"ConnectAck"        ; PCRE2 over the reply's payload (first 8 KB)
 *
 *   [frame.NAME]                     ; one or more, sent in file order every iteration
 *   text | file, type                ; as for the handshake; templates like HTTP bodies
 *   expect_reply = no                ; yes: read one reply frame after this one
 *
 * scn_parse_frames() is called by scenario.c before the [request] sections are read; it
 * reports every mistake as `FILE:LINE: message` through scenario.c's helpers: HTTP keys
 * (url, method, header, body, expect_*, weight) or [request.NAME] sections with tcp-frame,
 * frame sections or tcp-frame keys without it, a bad address, a missing or unreadable
 * file, both or neither of text and file, a bad type, pattern or placeholder.
 */
#ifndef SOAK_SCENARIO_FRAME_H
#define SOAK_SCENARIO_FRAME_H

#include <stddef.h>
#include <stdio.h>

#include "scenario.h"

#define SCN_FRAME_FILE_MAX    (1L << 20) /* a frame template file larger than this is a mistake */
#define SCN_MAX_FRAME_DEFAULT (1 << 20)

struct scn_parse;

/* Reads [request] protocol, address, max_frame, [handshake] and [frame.NAME] into s. */
void scn_parse_frames(struct scn_parse *p, struct scenario *s);
/* Prints the tcp-frame part of the plan (nothing for HTTP scenarios). */
void scn_print_frames(const struct scenario *s, FILE *f);

#endif
