/*
 * GcWork: a small, single-threaded, deterministic workload whose GC logs are test fixtures
 * for soak's memory verdicts (see gen.sh next to it, which runs it and documents the exact
 * command lines).
 *
 *   java GcWork leak   SECONDS LEAK_KB_PER_TICK   retains LEAK_KB every 10 ms tick, never
 *                                                  releases it: runs until the JVM dies of
 *                                                  OutOfMemoryError (exit 1, as an application
 *                                                  that does not catch it) or SECONDS pass
 *   java GcWork stable SECONDS LIVE_MB            holds a fixed live set of LIVE_MB in 4 KB
 *                                                  arrays and replaces 1 % of it each tick
 *   java GcWork trickle SECONDS KB_PER_SECOND     a slow leak: retains KB_PER_SECOND KB a
 *                                                  second (1 KB arrays, spread over the ticks)
 *                                                  with a fifth of the churn (about 8 MB/s), so
 *                                                  that a long run stays small on disk
 *
 * leak and stable allocate the same churn of short-lived arrays (64 B .. 16 KB, about 40 MB/s,
 * with the newest 256 kept briefly alive), so young collections happen at the same pace; only
 * what is retained differs.  Seeds are fixed.
 */
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public final class GcWork {
	private static final int TICK_MS = 10;
	private static final int CHURN_PER_TICK = 50; /* arrays of up to 16 KB: ~0.4 MB per tick */

	public static void main(String[] args) throws InterruptedException {
		if (args.length != 3) {
			System.err.println("usage: GcWork leak|stable|trickle SECONDS KB_PER_TICK|LIVE_MB|KB_PER_S");
			System.exit(2);
		}
		String mode = args[0];
		long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
		int arg = Integer.parseInt(args[2]);
		boolean trickle = mode.equals("trickle");
		int churn = trickle ? CHURN_PER_TICK / 5 : CHURN_PER_TICK;
		long start = System.nanoTime(), kept = 0;
		Random rnd = new Random(mode.equals("leak") ? 42 : trickle ? 11 : 7);
		byte[][] ring = new byte[256][];
		List<byte[]> leaked = new ArrayList<>();
		byte[][] live = null;
		long sink = 0;
		int r = 0;

		if (mode.equals("stable")) {
			live = new byte[arg * 256][];
			for (int i = 0; i < live.length; i++)
				live[i] = new byte[4096];
		} else if (!mode.equals("leak") && !trickle) {
			System.err.println("unknown mode '" + mode + "'");
			System.exit(2);
		}
		while (System.nanoTime() < end) {
			long tick = System.nanoTime() + TICK_MS * 1_000_000L;
			for (int i = 0; i < churn; i++) {
				byte[] b = new byte[64 + rnd.nextInt(16 * 1024)];
				b[0] = (byte)i;
				ring[r++ & 255] = b;
				sink += b.length;
			}
			if (live != null) {
				for (int i = 0; i < live.length / 100; i++)
					live[rnd.nextInt(live.length)] = new byte[4096];
			} else if (trickle) {
				/* arg KB per second of wall time, whatever the ticks' lateness */
				long want = (System.nanoTime() - start) / 1_000_000L * arg / 1000;
				for (; kept < want; kept++)
					leaked.add(new byte[1024]);
			} else {
				for (int i = 0; i < arg; i++)
					leaked.add(new byte[1024]);
			}
			long left = tick - System.nanoTime();
			if (left > 0)
				Thread.sleep(left / 1_000_000L, (int)(left % 1_000_000L));
		}
		System.out.println("GcWork " + mode + ": done (" + sink + " bytes churned, " + leaked.size()
				   + " KB leaked)");
	}
}
