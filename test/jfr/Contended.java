// A contended program for t_jfr_jdk.sh: four threads take turns holding
// one monitor while they spin (the others wait to enter it: CPU samples
// and jdk.JavaMonitorEnter events), park for 15 ms each round
// (jdk.ThreadPark events) and keep what they allocate (objects still
// alive at the end: jdk.OldObjectSample events), for about 1.5 seconds.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

public class Contended {
    static final Object monitor = new Object();
    static final List<long[]> kept = new ArrayList<>();

    static long spin(long nanos) {
        long end = System.nanoTime() + nanos;
        long s = 0;
        while (System.nanoTime() < end) {
            s += s * 31 + 7;
        }
        return s;
    }

    static long holdMonitor() {
        synchronized (monitor) {
            return spin(15_000_000L);
        }
    }

    static void parkAWhile() {
        LockSupport.parkNanos(15_000_000L);
    }

    static void keep() {
        synchronized (kept) {
            kept.add(new long[16_384]);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        long end = System.nanoTime() + 1_500_000_000L;
        Thread[] workers = new Thread[4];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(() -> {
                long sum = 0;
                while (System.nanoTime() < end) {
                    sum += holdMonitor();
                    parkAWhile();
                    keep();
                }
                if (sum == 42) {
                    System.out.println(sum);
                }
            }, "worker-" + i);
            workers[i].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        System.out.println(kept.size());
    }
}
