import jdk.jfr.Event;
import jdk.jfr.Name;

/*
 * Writes async-profiler's wall-clock sample events by hand, with the span
 * context that Pyroscope's async-profiler adds to them: spanId (the span's
 * id) and spanName (an id of the agent's LabelsSnapshot strings), beside
 * contextId (an id of its contexts).  One event from each of three methods.
 */
public class Spans {
    @Name("profiler.WallClockSample")
    static class WallClockSample extends Event {
        int samples;
        long contextId;
        long spanId;
        long spanName;
    }

    static void sample(long contextId, long spanId, long spanName) {
        WallClockSample e = new WallClockSample();
        e.samples = 1;
        e.contextId = contextId;
        e.spanId = spanId;
        e.spanName = spanName;
        e.commit();
    }

    static void checkout() { sample(1, 0x1234abcdL, 7); }
    static void search() { sample(0, 0x42L, 8); }
    static void idle() { sample(1, 0, 0); }

    public static void main(String[] args) {
        checkout();
        search();
        idle();
    }
}
