/*
 * soak registration servlet: the system under test of the container studies.
 *
 * One source for both servlet APIs: it is written against javax.servlet and
 * targets/servlet/build.sh rewrites the imports to jakarta.servlet for Tomcat 10.
 * No jars besides the servlet API and (at run time) the PostgreSQL JDBC driver.
 *
 *   POST /register   form or JSON {username, email, password}
 *                    201 {"id":N} | 400 {"error":"bad field: NAME"} | 409 {"error":"username taken"}
 *                    415 other content type | 413 body too large | 503 database unavailable
 *   GET  /health     200 "ok" when a database connection is usable, else 503
 *                    (header X-Soak-Server carries ServletContext.getServerInfo(), and
 *                    X-Soak-Instance the system property soak.instance when set, so a
 *                    start script knows that the answer came from the JVM it started)
 *
 * Configuration: system properties, else environment variables:
 *   soak.db.url / SOAK_DB_URL            jdbc:postgresql://127.0.0.1:PORT/soak
 *   soak.db.user / SOAK_DB_USER          default soak
 *   soak.db.password / SOAK_DB_PASSWORD  default soak
 *   soak.db.pool / SOAK_DB_POOL          fixed pool size, default 16
 *   soak.pbkdf2.iterations / SOAK_PBKDF2_ITERATIONS   default 1000
 *   soak.leak / SOAK_LEAK                default 0; N > 0 keeps the body of every POST
 *                                        /register, N times over, for the life of the
 *                                        JVM: a leak on purpose, whose size per request
 *                                        is known, for tests of the memory verdict
 */
package soak;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.spec.KeySpec;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

public final class RegisterServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private static final int MAX_BODY = 16 * 1024;
    private static final long POOL_WAIT_MS = 10_000;
    private static final long IDLE_CHECK_MS = 30_000;
    private static final String INSERT_SQL =
        "INSERT INTO users (username, email, pw_hash) VALUES (?, ?, ?) RETURNING id";

    /** One pooled connection; a slot with conn == null is (re)connected on borrow. */
    private static final class Slot {
        Connection conn;
        PreparedStatement insert;
        long lastUsed;
        long checkedAt; /* when it was last known to work: connected or validated */
    }

    /** Bad input: answered with 400 and the message. */
    private static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;
        BadRequest(String msg) { super(msg, null, false, false); }
    }

    private String url;
    private Properties dbProps;
    private Driver driver;
    private int poolSize;
    private int iterations;
    /** soak.leak: how many copies of each request body are kept (0: none). */
    private int leakTimes;
    /** What the leak keeps: never read, never freed. */
    private final java.util.Queue<byte[]> kept = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private ArrayBlockingQueue<Slot> pool;
    private List<Slot> allSlots;
    private String serverInfo;
    private String instance;

    private final AtomicLong lastLogged = new AtomicLong();
    /** When a pooled connection last turned out broken: older ones are validated before use. */
    private final AtomicLong brokenAt = new AtomicLong();

    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(() -> {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (java.security.NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    });
    private static final ThreadLocal<SecretKeyFactory> PBKDF2 = ThreadLocal.withInitial(() -> {
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });

    private static String setting(String prop, String env, String dflt) {
        String v = System.getProperty(prop);
        if (v == null || v.isEmpty()) v = System.getenv(env);
        return (v == null || v.isEmpty()) ? dflt : v;
    }

    private static int intSetting(String prop, String env, int dflt, int min, int max)
            throws ServletException {
        String v = setting(prop, env, null);
        if (v == null) return dflt;
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min || n > max) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new ServletException(prop + ": expected an integer in " + min + ".." + max
                                       + ", got '" + v + "'");
        }
    }

    @Override
    public void init() throws ServletException {
        url = setting("soak.db.url", "SOAK_DB_URL", null);
        if (url == null) {
            throw new ServletException("soak.db.url (or SOAK_DB_URL) is not set");
        }
        dbProps = new Properties();
        dbProps.setProperty("user", setting("soak.db.user", "SOAK_DB_USER", "soak"));
        dbProps.setProperty("password", setting("soak.db.password", "SOAK_DB_PASSWORD", "soak"));
        dbProps.setProperty("connectTimeout", "5");
        dbProps.setProperty("tcpKeepAlive", "true");
        dbProps.setProperty("ApplicationName", "soak-servlet");
        poolSize = intSetting("soak.db.pool", "SOAK_DB_POOL", 16, 1, 1000);
        iterations = intSetting("soak.pbkdf2.iterations", "SOAK_PBKDF2_ITERATIONS", 1000, 1,
                                10_000_000);
        leakTimes = intSetting("soak.leak", "SOAK_LEAK", 0, 0, 1_000_000);
        try {
            driver = (Driver) Class.forName("org.postgresql.Driver", true,
                                            RegisterServlet.class.getClassLoader())
                                   .getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new ServletException("PostgreSQL JDBC driver not found in WEB-INF/lib", e);
        }
        pool = new ArrayBlockingQueue<>(poolSize);
        allSlots = new ArrayList<>(poolSize);
        for (int i = 0; i < poolSize; i++) {
            Slot s = new Slot();
            allSlots.add(s);
            pool.add(s);
        }
        serverInfo = getServletContext().getServerInfo();
        instance = System.getProperty("soak.instance", "");
        log("soak: server=" + serverInfo + " db=" + url + " pool=" + poolSize
            + " pbkdf2.iterations=" + iterations + (leakTimes > 0 ? " leak=" + leakTimes : ""));
    }

    @Override
    public void destroy() {
        if (allSlots != null) {
            for (Slot s : allSlots) {
                synchronized (s) {
                    closeQuietly(s);
                }
            }
        }
        /* The driver registered itself with DriverManager when its class loaded;
         * deregister what this webapp's class loader brought, so undeploy leaks nothing. */
        ClassLoader mine = RegisterServlet.class.getClassLoader();
        Enumeration<Driver> drivers = DriverManager.getDrivers();
        while (drivers.hasMoreElements()) {
            Driver d = drivers.nextElement();
            if (d.getClass().getClassLoader() == mine) {
                try {
                    DriverManager.deregisterDriver(d);
                } catch (SQLException ignored) {
                    /* nothing to do */
                }
            }
        }
    }

    /* ---------------------------------------------------------------- routing */

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp)
            throws ServletException, IOException {
        String path = req.getServletPath();
        String method = req.getMethod();
        if ("/health".equals(path)) {
            if ("GET".equals(method) || "HEAD".equals(method)) {
                health(req, resp);
            } else {
                resp.setHeader("Allow", "GET, HEAD");
                json(resp, 405, "{\"error\":\"method not allowed\"}");
            }
        } else if ("/register".equals(path)) {
            if ("POST".equals(method)) {
                register(req, resp);
            } else {
                resp.setHeader("Allow", "POST");
                json(resp, 405, "{\"error\":\"method not allowed\"}");
            }
        } else {
            json(resp, 404, "{\"error\":\"not found\"}");
        }
    }

    private void health(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setHeader("X-Soak-Server", serverInfo);
        if (!instance.isEmpty()) resp.setHeader("X-Soak-Instance", instance);
        boolean ok = false;
        Slot s = borrow(2_000);
        if (s != null) {
            try {
                connect(s);
                ok = s.conn.isValid(2);
                if (!ok) {
                    closeQuietly(s);
                    brokenAt.set(System.currentTimeMillis());
                }
            } catch (SQLException e) {
                closeQuietly(s);
                brokenAt.set(System.currentTimeMillis());
                logLimited("health: database connection failed: " + e);
            } finally {
                pool.offer(s);
            }
        }
        byte[] body = (ok ? "ok\n" : "database unavailable\n").getBytes(StandardCharsets.US_ASCII);
        resp.setStatus(ok ? 200 : 503);
        resp.setContentType("text/plain");
        resp.setContentLength(body.length);
        if (!"HEAD".equals(req.getMethod())) {
            try (OutputStream out = resp.getOutputStream()) {
                out.write(body);
            }
        }
    }

    /* ---------------------------------------------------------------- register */

    private void register(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String ct = req.getContentType();
        String media = ct == null ? "" : ct;
        int semi = media.indexOf(';');
        if (semi >= 0) media = media.substring(0, semi);
        media = media.trim().toLowerCase(Locale.ROOT);
        boolean form = media.equals("application/x-www-form-urlencoded");
        boolean isJson = media.equals("application/json");
        if (!form && !isJson) {
            json(resp, 415, "{\"error\":\"unsupported content type\"}");
            return;
        }
        byte[] raw = readBody(req);
        if (raw == null) {
            json(resp, 413, "{\"error\":\"body too large\"}");
            return;
        }
        if (leakTimes > 0) keep(raw);
        String text = new String(raw, StandardCharsets.UTF_8);
        Map<String, String> f;
        try {
            f = form ? parseForm(text) : parseJson(text);
        } catch (BadRequest e) {
            json(resp, 400, "{\"error\":" + quote(e.getMessage()) + "}");
            return;
        }
        String username = f.get("username");
        String email = f.get("email");
        String password = f.get("password");
        String bad = !validUsername(username) ? "username"
                   : !validEmail(email) ? "email"
                   : !validPassword(password) ? "password" : null;
        if (bad != null) {
            json(resp, 400, "{\"error\":\"bad field: " + bad + "\"}");
            return;
        }
        String hash = hash(password);

        Slot s = borrow(POOL_WAIT_MS);
        if (s == null) {
            json(resp, 503, "{\"error\":\"database pool exhausted\"}");
            return;
        }
        long id = -1;
        boolean taken = false;
        try {
            connect(s);
            s.insert.setString(1, username);
            s.insert.setString(2, email);
            s.insert.setString(3, hash);
            try (ResultSet rs = s.insert.executeQuery()) {
                if (rs.next()) id = rs.getLong(1);
            }
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState())) {
                taken = true;
            } else {
                /* Anything else may have broken the session: drop it, reconnect next time. */
                closeQuietly(s);
                brokenAt.set(System.currentTimeMillis());
                logLimited("register: database error: " + e);
            }
        } finally {
            pool.offer(s);
        }
        if (taken) {
            json(resp, 409, "{\"error\":\"username taken\"}");
        } else if (id < 0) {
            json(resp, 503, "{\"error\":\"database unavailable\"}");
        } else {
            json(resp, 201, "{\"id\":" + id + "}");
        }
    }

    /** The leak: leakTimes copies of the body, kept for good. */
    private void keep(byte[] raw) {
        byte[] k = new byte[raw.length * leakTimes];
        for (int i = 0; i < leakTimes; i++) System.arraycopy(raw, 0, k, i * raw.length, raw.length);
        kept.add(k);
    }

    private static byte[] readBody(HttpServletRequest req) throws IOException {
        long declared = req.getContentLengthLong();
        if (declared > MAX_BODY) return null;
        byte[] buf = new byte[declared > 0 ? (int) declared : 512];
        int n = 0;
        try (InputStream in = req.getInputStream()) {
            for (;;) {
                if (n == buf.length) {
                    if (buf.length >= MAX_BODY) {
                        if (in.read() < 0) break;
                        return null;
                    }
                    buf = java.util.Arrays.copyOf(buf, Math.min(MAX_BODY, buf.length * 2));
                }
                int r = in.read(buf, n, buf.length - n);
                if (r < 0) break;
                n += r;
            }
        }
        return n == buf.length ? buf : java.util.Arrays.copyOf(buf, n);
    }

    /* ---------------------------------------------------------------- validation */

    static boolean validUsername(String u) {
        if (u == null || u.length() < 3 || u.length() > 64) return false;
        for (int i = 0; i < u.length(); i++) {
            char c = u.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                         || c == '_' || c == '.' || c == '-';
            if (!ok) return false;
        }
        return true;
    }

    static boolean validEmail(String e) {
        if (e == null || e.length() < 5 || e.length() > 254) return false;
        int at = e.indexOf('@');
        if (at <= 0 || at != e.lastIndexOf('@')) return false;
        int dot = e.indexOf('.', at + 1);
        if (dot <= at + 1 || dot == e.length() - 1 || e.endsWith(".")) return false;
        for (int i = 0; i < e.length(); i++) {
            char c = e.charAt(i);
            if (c <= ' ' || c == 0x7f) return false;
        }
        return true;
    }

    static boolean validPassword(String p) {
        if (p == null) return false;
        int n = p.codePointCount(0, p.length());
        return n >= 8 && n <= 128;
    }

    /* ---------------------------------------------------------------- hashing */

    private String hash(String password) {
        byte[] salt = new byte[16];
        RANDOM.get().nextBytes(salt);
        KeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
        byte[] dk;
        try {
            dk = PBKDF2.get().generateSecret(spec).getEncoded();
        } catch (java.security.spec.InvalidKeySpecException e) {
            throw new IllegalStateException(e);
        }
        Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
        return "pbkdf2-sha256$" + iterations + "$" + b64.encodeToString(salt) + "$"
               + b64.encodeToString(dk);
    }

    /* ---------------------------------------------------------------- pool */

    private Slot borrow(long waitMs) {
        try {
            return pool.poll(waitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Make sure the slot holds a live connection. A connection that sat idle for a while, or
     * that is older than the last one found broken (the database restarted, say), is checked
     * first, so one failure does not cost one failed request per pooled connection.
     */
    private void connect(Slot s) throws SQLException {
        long now = System.currentTimeMillis();
        if (s.conn != null && (now - s.lastUsed > IDLE_CHECK_MS || s.checkedAt <= brokenAt.get())) {
            if (s.conn.isValid(2)) {
                s.checkedAt = now;
            } else {
                closeQuietly(s);
            }
        }
        if (s.conn == null) {
            Connection c = driver.connect(url, dbProps);
            if (c == null) throw new SQLException("driver does not accept URL " + url, "08001");
            try {
                c.setAutoCommit(true);
                s.insert = c.prepareStatement(INSERT_SQL);
            } catch (SQLException e) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    /* already failing */
                }
                throw e;
            }
            s.conn = c;
            s.checkedAt = now;
        }
        s.lastUsed = now;
    }

    private static void closeQuietly(Slot s) {
        if (s.conn != null) {
            try {
                s.conn.close();
            } catch (SQLException ignored) {
                /* it is being discarded */
            }
        }
        s.conn = null;
        s.insert = null;
    }

    private void logLimited(String msg) {
        long now = System.currentTimeMillis();
        long last = lastLogged.get();
        if (now - last >= 5_000 && lastLogged.compareAndSet(last, now)) {
            log(msg);
        }
    }

    /* ---------------------------------------------------------------- output */

    private static void json(HttpServletResponse resp, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setContentLength(b.length);
        try (OutputStream out = resp.getOutputStream()) {
            out.write(b);
        }
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /* ---------------------------------------------------------------- parsing */

    static Map<String, String> parseForm(String body) throws BadRequest {
        Map<String, String> m = new HashMap<>();
        for (String pair : body.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String k = eq < 0 ? pair : pair.substring(0, eq);
            String v = eq < 0 ? "" : pair.substring(eq + 1);
            try {
                k = URLDecoder.decode(k, StandardCharsets.UTF_8);
                v = URLDecoder.decode(v, StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw new BadRequest("bad form encoding");
            }
            m.putIfAbsent(k, v);
        }
        return m;
    }

    /**
     * A small JSON reader for one flat object. String values are kept; numbers, booleans,
     * null and nested values are accepted by the syntax but not kept (a field that must be a
     * string and is not one then fails validation as missing).
     */
    static Map<String, String> parseJson(String s) throws BadRequest {
        Json j = new Json(s);
        Map<String, String> m = j.object();
        j.ws();
        if (j.i != s.length()) throw new BadRequest("bad json");
        return m;
    }

    private static final class Json {
        final String s;
        int i;

        Json(String s) { this.s = s; }

        void ws() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
                i++;
            }
        }

        char peek() throws BadRequest {
            ws();
            if (i >= s.length()) throw new BadRequest("bad json");
            return s.charAt(i);
        }

        void expect(char c) throws BadRequest {
            if (peek() != c) throw new BadRequest("bad json");
            i++;
        }

        Map<String, String> object() throws BadRequest {
            Map<String, String> m = new HashMap<>();
            expect('{');
            if (peek() == '}') {
                i++;
                return m;
            }
            for (;;) {
                if (peek() != '"') throw new BadRequest("bad json");
                String k = string();
                expect(':');
                if (peek() == '"') {
                    String v = string();
                    m.putIfAbsent(k, v);
                } else {
                    skipValue(1);
                }
                char c = peek();
                i++;
                if (c == '}') return m;
                if (c != ',') throw new BadRequest("bad json");
            }
        }

        void skipValue(int depth) throws BadRequest {
            if (depth > 32) throw new BadRequest("bad json");
            char c = peek();
            if (c == '"') {
                string();
            } else if (c == '{' || c == '[') {
                char close = c == '{' ? '}' : ']';
                i++;
                if (peek() == close) {
                    i++;
                    return;
                }
                for (;;) {
                    if (c == '{') {
                        if (peek() != '"') throw new BadRequest("bad json");
                        string();
                        expect(':');
                    }
                    skipValue(depth + 1);
                    char d = peek();
                    i++;
                    if (d == close) return;
                    if (d != ',') throw new BadRequest("bad json");
                }
            } else {
                int start = i;
                while (i < s.length() && "+-.0123456789eEtrufalsn".indexOf(s.charAt(i)) >= 0) i++;
                String lit = s.substring(start, i);
                if (!(lit.equals("true") || lit.equals("false") || lit.equals("null")
                      || lit.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"))) {
                    throw new BadRequest("bad json");
                }
            }
        }

        String string() throws BadRequest {
            i++; /* opening quote, checked by the caller */
            StringBuilder sb = new StringBuilder();
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '"') return sb.toString();
                if (c < 0x20) throw new BadRequest("bad json");
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                if (i >= s.length()) break;
                char e = s.charAt(i++);
                switch (e) {
                    case '"': sb.append('"'); break;
                    case '\\': sb.append('\\'); break;
                    case '/': sb.append('/'); break;
                    case 'b': sb.append('\b'); break;
                    case 'f': sb.append('\f'); break;
                    case 'n': sb.append('\n'); break;
                    case 'r': sb.append('\r'); break;
                    case 't': sb.append('\t'); break;
                    case 'u':
                        if (i + 4 > s.length()) throw new BadRequest("bad json");
                        try {
                            sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw new BadRequest("bad json");
                        }
                        i += 4;
                        break;
                    default:
                        throw new BadRequest("bad json");
                }
            }
            throw new BadRequest("bad json");
        }
    }
}
