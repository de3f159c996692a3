/* The tcp-frame wire format (frame.h) against the specification, computed by hand, and the
 * tcp-frame scenario keys: a good file and every mistake with its FILE:LINE message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "engine/frame.h"
#include "scenario/scenario.h"
#include "scenario/scenario_frame.h"
#include "engine/engine.h"
#include "engine/vuheap.h"

/* DataOutputStream.writeShort(v): (v >>> 8) & 0xFF, v & 0xFF; writeInt(v): four bytes, high
 * byte first.  The vectors below are those bytes written out by hand. */
static void header_is_big_endian_short_then_int(void **state)
{
	static const struct {
		unsigned type;
		uint32_t len;
		uint8_t want[FRAME_HDR];
	} v[] = {
	    {1, 0, {0x00, 0x01, 0x00, 0x00, 0x00, 0x00}},
	    {1, 5, {0x00, 0x01, 0x00, 0x00, 0x00, 0x05}},
	    {1, 300, {0x00, 0x01, 0x00, 0x00, 0x01, 0x2c}},
	    {0x1234, 0x01020304, {0x12, 0x34, 0x01, 0x02, 0x03, 0x04}},
	    {65535, 0x7fffffff, {0xff, 0xff, 0x7f, 0xff, 0xff, 0xff}},
	    {2, 1048576, {0x00, 0x02, 0x00, 0x10, 0x00, 0x00}},
	};
	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		uint8_t got[FRAME_HDR];
		frame_put_header(got, v[i].type, v[i].len);
		assert_memory_equal(got, v[i].want, FRAME_HDR);
	}
}

/* A frame fed one byte at a time completes exactly at its last byte and never takes a
 * byte of the next frame. */
static void reader_takes_one_frame_in_pieces(void **state)
{
	const char *payload = "{\"T\":\"ConnectAck\",\"S\":1,\"CLIENT_SESSION\":\"7\"}";
	uint8_t wire[128];
	size_t plen = strlen(payload), used;
	char keep[16];
	struct frame_rd r;
	(void)state;

	frame_put_header(wire, 1, (uint32_t)plen);
	memcpy(wire + FRAME_HDR, payload, plen);
	memcpy(wire + FRAME_HDR + plen, "\x00\x01", 2); /* the next frame's first bytes */
	frame_rd_start(&r, 1, 1024, keep, sizeof keep);
	for (size_t i = 0; i < FRAME_HDR + plen - 1; i++) {
		assert_int_equal(frame_rd_need(&r) > 0, 1);
		assert_int_equal(frame_rd_feed(&r, wire + i, 1, &used), FRAME_MORE);
		assert_int_equal(used, 1);
	}
	assert_int_equal(frame_rd_feed(&r, wire + FRAME_HDR + plen - 1, 3, &used), FRAME_DONE);
	assert_int_equal(used, 1);
	assert_int_equal(r.len, plen);
	assert_int_equal(frame_rd_bytes(&r), FRAME_HDR + plen);
	/* Only keep_cap - 1 bytes are kept, NUL-terminated. */
	assert_int_equal(r.kept, sizeof keep - 1);
	assert_memory_equal(keep, payload, sizeof keep - 1);
	assert_int_equal(keep[sizeof keep - 1], '\0');

	/* All at once, with trailing bytes: the same. */
	frame_rd_start(&r, 1, 1024, NULL, 0);
	assert_int_equal(frame_rd_need(&r), FRAME_HDR);
	assert_int_equal(frame_rd_feed(&r, wire, FRAME_HDR + plen + 2, &used), FRAME_DONE);
	assert_int_equal(used, FRAME_HDR + plen);
}

static void reader_rejects_bad_type_and_long_frames(void **state)
{
	uint8_t h[FRAME_HDR];
	size_t used;
	struct frame_rd r;
	(void)state;

	frame_put_header(h, 2, 10);
	frame_rd_start(&r, 1, 1024, NULL, 0);
	assert_int_equal(frame_rd_feed(&r, h, sizeof h, &used), FRAME_BAD_TYPE);
	assert_int_equal(r.type, 2);

	frame_put_header(h, 1, 1025);
	frame_rd_start(&r, 1, 1024, NULL, 0);
	assert_int_equal(frame_rd_feed(&r, h, sizeof h, &used), FRAME_TOO_LONG);
	assert_int_equal(r.len, 1025);

	/* A negative Java int is never a length, whatever the cap. */
	frame_put_header(h, 1, 0x80000000u);
	frame_rd_start(&r, 1, 0xffffffffu, NULL, 0);
	assert_int_equal(frame_rd_feed(&r, h, sizeof h, &used), FRAME_TOO_LONG);

	/* An empty payload completes with its header. */
	frame_put_header(h, 1, 0);
	frame_rd_start(&r, 1, 1024, NULL, 0);
	assert_int_equal(frame_rd_feed(&r, h, sizeof h, &used), FRAME_DONE);
	assert_int_equal(frame_rd_need(&r), 0);
}

static const char good[] = "[scenario]\n"
                           "duration = 1m\n"
                           "connection = close\n"
                           "[request]\n"
                           "protocol = tcp-frame\n"
                           "address = 127.0.0.1:7000\n"
                           "timeout = 2s\n"
                           "max_frame = 64k\n"
                           "[handshake]\n"
                           "text = {\"T\":\"Connect\",\"HOST_NAME\":\"h${vu}\"}\n"
                           "expect = ConnectAck\n"
                           "[frame.memory]\n"
                           "text = {\"T\":\"MonitorItemData\",\"TS\":${now_ms}}\n"
                           "[frame.gc]\n"
                           "text = {\"T\":\"MonitorItemData\"}\n"
                           "type = 7\n"
                           "expect_reply = yes\n";

static void parses_a_tcp_frame_scenario(void **state)
{
	struct scenario s;
	char err[512] = "";
	(void)state;

	assert_int_equal(scn_parse_text(&s, "t.ini", good, NULL, 0, err, sizeof err), 0);
	assert_int_equal(s.plan.protocol, PLAN_TCP_FRAME);
	assert_int_equal(s.plan.connection, PLAN_CLOSE);
	assert_string_equal(s.plan.address, "127.0.0.1:7000");
	assert_int_equal(s.plan.max_frame, 65536);
	assert_int_equal(s.plan.nreqs, 1);
	assert_int_equal(s.plan.reqs[0].timeout_ms, 2000);
	assert_int_equal(s.plan.has_handshake, 1);
	assert_non_null(s.plan.handshake_expect);
	assert_int_equal(s.plan.handshake.type, 1);
	assert_int_equal(s.plan.nframes, 2);
	assert_int_equal(s.plan.frames[0].text.dynamic, 1);
	assert_int_equal(s.plan.frames[0].expect_reply, 0);
	assert_int_equal(s.plan.frames[1].type, 7);
	assert_int_equal(s.plan.frames[1].expect_reply, 1);
	scn_release(&s);
}

static void frames_from_files_relative_to_the_scenario(void **state)
{
	char dir[] = "/tmp/soak-tf.XXXXXX", path[256], ini[256];
	struct scenario s;
	char err[512] = "";
	FILE *f;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/m.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"T\":\"MonitorItemData\",\"MID\":${seq}}\n", f); /* the final newline is dropped */
	fclose(f);
	snprintf(ini, sizeof ini, "%s/s.ini", dir);
	f = fopen(ini, "w");
	assert_non_null(f);
	fputs("[scenario]\nduration = 1m\n[request]\nprotocol = tcp-frame\naddress = [::1]:9\n"
	      "[frame.m]\nfile = m.json\n",
	      f);
	fclose(f);
	assert_int_equal(scn_load(&s, ini, NULL, 0, err, sizeof err), 0);
	assert_int_equal(s.plan.nframes, 1);
	assert_int_equal(s.plan.max_frame, 1 << 20);
	assert_int_equal(s.plan.frames[0].text.min_len,
	                 strlen("{\"T\":\"MonitorItemData\",\"MID\":}"));
	scn_release(&s);
	unlink(path);
	unlink(ini);
	rmdir(dir);
}

#define TF "[scenario]\nduration = 1m\n[request]\nprotocol = tcp-frame\n"

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
    {TF "[frame.a]\ntext = x\n", "bad.ini:3: [request] needs address = HOST:PORT"},
    {TF "address = 127.0.0.1\n[frame.a]\ntext = x\n",
     "bad.ini:5: address: '127.0.0.1' is not HOST:PORT"},
    {TF "address = 127.0.0.1:70000\n[frame.a]\ntext = x\n",
     "bad.ini:5: address: '127.0.0.1:70000': the port must be 1..65535"},
    {TF "address = :80\n[frame.a]\ntext = x\n", "bad.ini:5: address: ':80': no host"},
    {TF "address = h:1\n",
     "bad.ini:3: protocol = tcp-frame needs at least one [frame.NAME] section"},
    {TF "address = h:1\nurl = http://x/\n[frame.a]\ntext = x\n",
     "bad.ini:6: url: an HTTP key; protocol = tcp-frame sends [frame.NAME] sections"},
    {TF "address = h:1\n[request.b]\ntimeout = 1s\n[frame.a]\ntext = x\n",
     "bad.ini:6: [request.b]: protocol = tcp-frame sends the [frame.NAME] sections, not request "
     "kinds"},
    {TF "address = h:1\nmax_frame = lots\n[frame.a]\ntext = x\n",
     "bad.ini:6: max_frame: 'lots' is not a size of 1 to 2147483647 bytes (512k, 1M)"},
    {TF "address = h:1\n[frame.a]\ntype = 1\n",
     "bad.ini:6: [frame.a] needs one of text = ... or file = PATH"},
    {TF "address = h:1\n[frame.a]\ntext = x\nfile = y\n",
     "bad.ini:7: [frame.a] needs only one of text = ... or file = PATH"},
    {TF "address = h:1\n[frame.a]\nfile = /nonexistent/f.json\n",
     "bad.ini:7: file: cannot open '/nonexistent/f.json': No such file or directory"},
    {TF "address = h:1\n[frame.a]\ntext = x\ntype = 65536\n",
     "bad.ini:8: type: 65536 is outside 0..65535"},
    {TF "address = h:1\n[frame.a]\ntext = ${who}\n",
     "bad.ini:7: text: unknown placeholder '${who}' (known: seq, vu, iter, run, nonce, random:N, "
     "uuid, now_ms, agent, csv:COLUMN)"},
    {TF "address = h:1\n[frame.a]\ntext = x\nexpect_reply = maybe\n",
     "bad.ini:8: expect_reply: expected yes or no, not 'maybe'"},
    {TF "address = h:1\n[handshake]\ntext = x\nexpect = (\n[frame.a]\ntext = x\n",
     "bad.ini:8: bad expect pattern '(': missing closing parenthesis at offset 1"},
    {TF "address = h:1\n[frame.a]\ntext = x\nsize = 3\n",
     "bad.ini:8: unknown key 'size' in [frame.a]"},
    {"[scenario]\nduration = 1m\n[request]\nprotocol = smtp\n",
     "bad.ini:4: protocol: expected http or tcp-frame, not 'smtp'"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\naddress = h:1\n",
     "bad.ini:5: address: needs protocol = tcp-frame"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\n[frame.a]\ntext = x\n",
     "bad.ini:5: [frame.a] needs protocol = tcp-frame in [request]"},
};

static void bad_tcp_frame_scenarios(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct scenario s;
		char err[512] = "";
		int rc = scn_parse_text(&s, "bad.ini", bad[i].text, NULL, 0, err, sizeof err);
		if (rc != -1 || strcmp(err, bad[i].msg) != 0)
			fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, err, bad[i].msg);
	}
}

static void address_split(void **state)
{
	char host[64], err[128];
	int port;
	(void)state;

	assert_int_equal(
	    plan_address_split("127.0.0.1:7000", host, sizeof host, &port, err, sizeof err), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 7000);
	assert_int_equal(plan_address_split("[::1]:9", host, sizeof host, &port, err, sizeof err),
	                 0);
	assert_string_equal(host, "::1");
	assert_int_equal(port, 9);
	assert_int_equal(plan_address_split("::1:9", host, sizeof host, &port, err, sizeof err),
	                 -1);
	assert_int_equal(plan_address_split("[::1]9", host, sizeof host, &port, err, sizeof err),
	                 -1);
	assert_int_equal(plan_address_split("h:0", host, sizeof host, &port, err, sizeof err), -1);
	assert_int_equal(plan_address_split("h:1x", host, sizeof host, &port, err, sizeof err), -1);
}

/* The scheduling heap pops VUs in due order, ties included, and holds exactly cap. */
static void vuheap_pops_in_due_order(void **state)
{
	struct vuheap h;
	uint64_t x = 88172645463325252ULL;
	int64_t last = -1;
	(void)state;

	assert_int_equal(vuheap_init(&h, 1000), 0);
	for (int j = 0; j < 1000; j++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		vuheap_push(&h, j, (int64_t)(x % 50)); /* many ties */
	}
	assert_int_equal(h.n, 1000);
	for (int i = 0; i < 1000; i++) {
		int64_t due = vuheap_top(&h);
		int j = vuheap_pop(&h);
		assert_true(j >= 0 && j < 1000);
		assert_true(due >= last);
		last = due;
	}
	assert_int_equal(h.n, 0);
	vuheap_push(&h, 7, 5);
	vuheap_push(&h, 3, 1);
	assert_int_equal(vuheap_pop(&h), 3);
	assert_int_equal(vuheap_pop(&h), 7);
	vuheap_release(&h);
	vuheap_release(&h); /* twice is harmless */
}

/* The preflight connects to the scenario's address: a listener passes, a closed port
 * fails with a message naming the address.  (No name lookups: tests need no DNS.) */
static void preflight_reaches_the_address(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof a;
	struct scenario s = {0};
	char addr[64], err[256];
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	(void)state;

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	snprintf(addr, sizeof addr, "127.0.0.1:%d", ntohs(a.sin_port));
	s.plan.address = addr;
	s.plan.protocol = PLAN_TCP_FRAME;
	assert_int_equal(engine_preflight(&s.plan, err, sizeof err), 0);
	close(fd); /* nobody listens there now */
	err[0] = '\0';
	assert_int_equal(engine_preflight(&s.plan, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot reach the target 127.0.0.1:"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(header_is_big_endian_short_then_int),
	    cmocka_unit_test(reader_takes_one_frame_in_pieces),
	    cmocka_unit_test(reader_rejects_bad_type_and_long_frames),
	    cmocka_unit_test(parses_a_tcp_frame_scenario),
	    cmocka_unit_test(frames_from_files_relative_to_the_scenario),
	    cmocka_unit_test(bad_tcp_frame_scenarios),
	    cmocka_unit_test(address_split),
	    cmocka_unit_test(vuheap_pops_in_due_order),
	    cmocka_unit_test(preflight_reaches_the_address),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
