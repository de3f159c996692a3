/*
 * JMeterLauncher — runs Debian 12's JMeter 2.13 non-GUI.  As shipped it cannot load any
 * plan: Debian's XStream is newer than 2.13 expects and forbids every type not permitted
 * (ForbiddenClassException: org.apache.jmeter.save.ScriptWrapper).  This launcher does what
 * NewDriver would, inside NewDriver's own class loader, plus one thing: it permits every
 * type on SaveService's XStream instances before JMeter reads the plan.  Plans here are
 * the tests' own files, so trusting their types is fine.
 *
 * Build: javac -cp /usr/share/jmeter/bin/ApacheJMeter.jar -d DIR JMeterLauncher.java
 * Run:   java -Djmeter.home=/usr/share/jmeter -cp DIR:/usr/share/jmeter/bin/ApacheJMeter.jar \
 *             JMeterLauncher -n -t plan.jmx -l results.jtl ...   (NewDriver's arguments)
 */
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

public final class JMeterLauncher {
	public static void main(String[] args) throws Exception {
		String home = System.getProperty("jmeter.home", "/usr/share/jmeter");
		System.setProperty("jmeter.home", home);
		Class<?> driver = Class.forName("org.apache.jmeter.NewDriver");
		Field lf = driver.getDeclaredField("loader");
		lf.setAccessible(true);
		ClassLoader loader = (ClassLoader) lf.get(null);
		Thread.currentThread().setContextClassLoader(loader);

		/* SaveService reads its settings from JMeter's properties when it initialises. */
		Class<?> utils = loader.loadClass("org.apache.jmeter.util.JMeterUtils");
		utils.getMethod("setJMeterHome", String.class).invoke(null, home);
		utils.getMethod("loadJMeterProperties", String.class)
		    .invoke(null, home + "/bin/jmeter.properties");

		Class<?> save = Class.forName("org.apache.jmeter.save.SaveService", true, loader);
		Class<?> xstream = loader.loadClass("com.thoughtworks.xstream.XStream");
		Class<?> perm = loader.loadClass("com.thoughtworks.xstream.security.TypePermission");
		Object any = loader.loadClass("com.thoughtworks.xstream.security.AnyTypePermission")
		    .getField("ANY").get(null);
		int n = 0;
		for (Field f : save.getDeclaredFields()) {
			if (!Modifier.isStatic(f.getModifiers()) || !xstream.isAssignableFrom(f.getType()))
				continue;
			f.setAccessible(true);
			Object xs = f.get(null);
			if (xs == null)
				continue;
			xstream.getMethod("addPermission", perm).invoke(xs, any);
			n++;
		}
		if (n == 0)
			throw new IllegalStateException("no XStream instance found in SaveService");
		driver.getMethod("main", String[].class).invoke(null, (Object) args);
	}
}
