// A CPU-bound program for t_jfr_jdk.sh: two hot methods called from
// main for about two seconds, so that the JDK's execution sampler (every
// 10 ms with settings=profile) records a few hundred samples; and two
// allocating ones, small arrays (in TLABs) and large ones (outside).
public class Hot {
    static Object kept;

    static int small(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            kept = new long[16];
            s += ((long[]) kept).length;
        }
        return s;
    }

    static int large() {
        kept = new byte[4 << 20];
        return ((byte[]) kept).length;
    }

    static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static double sines(int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += Math.sin(i);
        }
        return s;
    }

    public static void main(String[] args) {
        long end = System.nanoTime() + 2_000_000_000L;
        long sum = 0;
        int rounds = 0;
        while (System.nanoTime() < end) {
            sum += fib(25);
            sum += (long) sines(200_000);
            // about 2.9 MB a round: a new TLAB every few rounds even when a
            // loaded machine runs few rounds in the two seconds
            sum += small(20_000);
            if (++rounds % 8 == 0) {
                sum += large();
            }
        }
        System.out.println(sum);
    }
}
