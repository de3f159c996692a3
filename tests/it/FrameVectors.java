// Test vectors for the tcp-frame wire format: what a Java agent's DataOutputStream writes.
// Reads lines `TYPE<TAB>TEXT` (UTF-8) on stdin and writes, for each, writeShort(TYPE),
// writeInt(length of TEXT's UTF-8 bytes) and write(those bytes) to stdout.
// Built and run by tests/it/test_tcpframe.sh (javac/java 17).
import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

public final class FrameVectors {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        DataOutputStream out = new DataOutputStream(System.out);
        String line;
        while ((line = in.readLine()) != null) {
            int tab = line.indexOf('\t');
            if (tab < 0) {
                continue;
            }
            byte[] payload = line.substring(tab + 1).getBytes(StandardCharsets.UTF_8);
            out.writeShort(Integer.parseInt(line.substring(0, tab)));
            out.writeInt(payload.length);
            out.write(payload);
        }
        out.flush();
    }
}
