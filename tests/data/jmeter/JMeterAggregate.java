/*
 * JMeterAggregate — what JMeter 2.13's own Aggregate Report shows for result files: the
 * report itself (org.apache.jmeter.visualizers.StatVisualizer, built headless), fed by
 * JMeter's own file loader (ResultCollector.loadExistingFile, as "Browse..." in the GUI
 * does), its table read back row by row.  The import tests hold `soak import jmeter`'s
 * figures against these; nothing here is soak's.
 *
 * Build: javac -cp JMETER_CP -d DIR JMeterAggregate.java
 * Run:   java -Djava.awt.headless=true -cp DIR:JMETER_CP JMeterAggregate FILE...
 *        JMETER_CP = /usr/share/jmeter/bin/ApacheJMeter.jar, lib/ext's core, components
 *        and http jars (XML results name HTTPSampleResult) and lib/jorphan.jar (their
 *        manifests name the rest).
 * Prints, per file, one line per table row (the TOTAL row last), tab-separated:
 *   FILE label samples average median pct1 pct2 pct3 min max error_fraction rate_per_s
 * with the report's own values (average is its Long column: the mean cut to a whole ms).
 * Saving with CSV or XML follows jmeter.properties, as a GUI session would read the file;
 * a CSV file without a header is read with the properties' default columns.
 */
import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import javax.swing.SwingUtilities;

import org.apache.jmeter.reporters.ResultCollector;
import org.apache.jmeter.save.SaveService;
import org.apache.jmeter.util.JMeterUtils;
import org.apache.jmeter.visualizers.StatVisualizer;
import org.apache.jorphan.gui.ObjectTableModel;
import org.apache.jorphan.logging.LoggingManager;

import com.thoughtworks.xstream.XStream;
import com.thoughtworks.xstream.security.AnyTypePermission;

public final class JMeterAggregate {
	public static void main(String[] args) throws Exception {
		String home = System.getProperty("jmeter.home", "/usr/share/jmeter");
		LoggingManager.setPriority("FATAL_ERROR"); /* its log would go to stdout */
		JMeterUtils.setJMeterHome(home);
		JMeterUtils.loadJMeterProperties(home + "/bin/jmeter.properties");
		JMeterUtils.initLocale();
		/* Debian's XStream forbids every type unless permitted (see JMeterLauncher). */
		for (Field f : SaveService.class.getDeclaredFields()) {
			if (!Modifier.isStatic(f.getModifiers()) || !XStream.class.isAssignableFrom(f.getType()))
				continue;
			f.setAccessible(true);
			XStream xs = (XStream) f.get(null);
			if (xs != null)
				xs.addPermission(AnyTypePermission.ANY);
		}
		for (String path : args) {
			if (!new File(path).canRead())
				throw new IllegalArgumentException("cannot read " + path);
			StatVisualizer report = new StatVisualizer();
			ResultCollector rc = new ResultCollector();
			rc.setFilename(path);
			rc.setListener(report);
			rc.loadExistingFile();
			/* The report adds each sample on Swing's event thread: wait for them all. */
			SwingUtilities.invokeAndWait(() -> { });
			Field mf = StatVisualizer.class.getDeclaredField("model");
			mf.setAccessible(true);
			ObjectTableModel m = (ObjectTableModel) mf.get(report);
			for (int r = 0; r < m.getRowCount(); r++) {
				StringBuilder line = new StringBuilder(path);
				for (int c = 0; c < m.getColumnCount() - 1; c++) /* KB/s left out */
					line.append('\t').append(m.getValueAt(r, c));
				System.out.println(line);
			}
		}
		System.exit(0);
	}
}
