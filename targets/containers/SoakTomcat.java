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
import org.apache.tomcat.util.scan.StandardJarScanner;

public final class SoakTomcat {
    private SoakTomcat() { }

    private static void usage(String msg) {
        System.err.println("soak-launcher: " + msg);
        System.err.println("usage: SoakTomcat --base DIR --webapp DIR --port P"
                           + " [--address A] [--threads N] [--accept N]");
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

    public static void main(String[] args) throws Exception {
        String base = null;
        String webapp = null;
        String address = "127.0.0.1";
        int port = -1;
        int threads = 400;
        int accept = 200;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) usage("missing value for " + a);
            String v = args[++i];
            switch (a) {
                case "--base": base = v; break;
                case "--webapp": webapp = v; break;
                case "--address": address = v; break;
                case "--port": port = num(a, v); break;
                case "--threads": threads = num(a, v); break;
                case "--accept": accept = num(a, v); break;
                default: usage("unknown option " + a);
            }
        }
        if (base == null || webapp == null || port <= 0) usage("--base, --webapp and --port are required");

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
        tomcat.setConnector(c);

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
        if (!c.getState().isAvailable()) {
            System.err.println("soak-launcher: connector failed to start on " + address + ":" + port);
            System.exit(1);
        }
        System.out.println("soak-launcher: started server=" + ServerInfo.getServerInfo()
                           + " port=" + port + " threads=" + threads + " accept=" + accept);
        System.out.flush();
        tomcat.getServer().await();
    }
}
