/*
 * Embedded Tomcat launcher for the Tomcat 9 -> Tomcat 10 study.
 *
 * The same source is compiled against Tomcat 9's and Tomcat 10's Debian jars
 * (targets/servlet/build.sh), so both versions start with identical settings and a
 * comparison isolates the container version. No access log valve, no shutdown port:
 * SIGTERM stops it (a shutdown hook stops Tomcat cleanly).
 *
 *   java -cp CLASSES:TOMCAT_JARS soak.SoakTomcat --base DIR --webapp DIR --port P
 *        [--address 127.0.0.1] [--threads 400] [--accept 200]
 *        [--tls-port P --tls-cert CERT.pem --tls-key KEY.pem] [--h2]
 *
 * --tls-port adds an https connector (JSSE, the certificate and key in PEM) with the same
 * pool settings; --h2 adds HTTP/2 to both connectors (h2 by ALPN on the https one, h2c
 * with prior knowledge or by upgrade on the plain one).
 *
 * Prints "soak-launcher: started server=<ServerInfo> port=P" on stdout once started.
 */
package soak;

import java.io.File;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.util.ServerInfo;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;
import org.apache.tomcat.util.scan.StandardJarScanner;

public final class SoakTomcat {
    private SoakTomcat() { }

    private static void usage(String msg) {
        System.err.println("soak-launcher: " + msg);
        System.err.println("usage: SoakTomcat --base DIR --webapp DIR --port P"
                           + " [--address A] [--threads N] [--accept N]"
                           + " [--tls-port P --tls-cert CERT --tls-key KEY] [--h2]");
        System.exit(2);
    }

    private static int num(String name, String v) {
        try {
            int n = Integer.parseInt(v);
            if (n < 0) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            usage(name + ": not a number: " + v);
            return -1;
        }
    }

    /* An https connector on JSSE with a PEM certificate and key (Tomcat 9 and 10 alike). */
    private static Connector tlsConnector(String address, int port, int threads, int accept,
                                          String cert, String key) {
        Connector tc = new Connector("org.apache.coyote.http11.Http11NioProtocol");
        tc.setPort(port);
        tc.setScheme("https");
        tc.setSecure(true);
        tc.setProperty("address", address);
        tc.setProperty("SSLEnabled", "true");
        tc.setProperty("maxThreads", Integer.toString(threads));
        tc.setProperty("acceptCount", Integer.toString(accept));
        tc.setURIEncoding("UTF-8");
        SSLHostConfig hc = new SSLHostConfig();
        hc.setHostName("_default_");
        SSLHostConfigCertificate c =
            new SSLHostConfigCertificate(hc, SSLHostConfigCertificate.Type.UNDEFINED);
        c.setCertificateFile(cert);
        c.setCertificateKeyFile(key);
        hc.addCertificate(c);
        tc.addSslHostConfig(hc);
        return tc;
    }

    public static void main(String[] args) throws Exception {
        String base = null;
        String webapp = null;
        String address = "127.0.0.1";
        int port = -1;
        int threads = 400;
        int accept = 200;
        int tlsPort = -1;
        String tlsCert = null;
        String tlsKey = null;
        boolean h2 = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--h2")) {
                h2 = true;
                continue;
            }
            if (i + 1 >= args.length) usage("missing value for " + a);
            String v = args[++i];
            switch (a) {
                case "--base": base = v; break;
                case "--webapp": webapp = v; break;
                case "--address": address = v; break;
                case "--port": port = num(a, v); break;
                case "--threads": threads = num(a, v); break;
                case "--accept": accept = num(a, v); break;
                case "--tls-port": tlsPort = num(a, v); break;
                case "--tls-cert": tlsCert = v; break;
                case "--tls-key": tlsKey = v; break;
                default: usage("unknown option " + a);
            }
        }
        if (base == null || webapp == null || port <= 0) usage("--base, --webapp and --port are required");
        if (tlsPort > 0 && (tlsCert == null || tlsKey == null)) usage("--tls-port needs --tls-cert and --tls-key");

        final Tomcat tomcat = new Tomcat();
        File baseDir = new File(base).getAbsoluteFile();
        tomcat.setBaseDir(baseDir.getPath());
        tomcat.getServer().setPort(-1);

        Connector c = new Connector("org.apache.coyote.http11.Http11NioProtocol");
        c.setPort(port);
        c.setProperty("address", address);
        c.setProperty("maxThreads", Integer.toString(threads));
        c.setProperty("acceptCount", Integer.toString(accept));
        c.setURIEncoding("UTF-8");
        if (h2) c.addUpgradeProtocol(new Http2Protocol());
        tomcat.setConnector(c);
        Connector tc = null;
        if (tlsPort > 0) {
            tc = tlsConnector(address, tlsPort, threads, accept, tlsCert, tlsKey);
            if (h2) tc.addUpgradeProtocol(new Http2Protocol());
            tomcat.getService().addConnector(tc);
        }

        tomcat.getHost().setAutoDeploy(false);
        Context ctx = tomcat.addWebapp("", new File(webapp).getAbsolutePath());
        /* Scan nothing beyond the webapp itself: the Debian jars on the class path carry
         * Class-Path manifests that point at jars which are not installed. */
        StandardJarScanner scanner = new StandardJarScanner();
        scanner.setScanClassPath(false);
        scanner.setScanManifest(false);
        ctx.setJarScanner(scanner);

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                tomcat.stop();
                tomcat.destroy();
            } catch (LifecycleException e) {
                System.err.println("soak-launcher: stop failed: " + e);
            }
        }, "soak-shutdown"));

        tomcat.start();
        if (!c.getState().isAvailable() || (tc != null && !tc.getState().isAvailable())) {
            System.err.println("soak-launcher: connector failed to start on " + address + ":" + port
                               + (tc != null ? " or " + tlsPort : ""));
            System.exit(1);
        }
        System.out.println("soak-launcher: started server=" + ServerInfo.getServerInfo()
                           + " port=" + port + (tc != null ? " tls_port=" + tlsPort : "")
                           + (h2 ? " h2" : "") + " threads=" + threads + " accept=" + accept);
        System.out.flush();
        tomcat.getServer().await();
    }
}
