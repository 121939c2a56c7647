package dev.richter.sizing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * What one load-driver worker measurably holds, with where the figure comes from: the default of a plan's
 * {@code perWorkerQps} ({@code PlanDocument.toPlan}) and the vCPUs the load driver is sized for.
 *
 * <p>The figure lives in one place, the resource {@value #RESOURCE} beside this class, written from the figures of the
 * bench named in it ({@code bench/load-driver.sh}): the steady maximum of one worker on one core, against the same
 * nginx and a bare C open-model sender in the same run (docs/production-size.md, "Workers sized by measurement").
 *
 * @param perWorkerQps requests per second one worker sends with exact counts on {@code vcpus} vCPUs, &gt; 0
 * @param vcpus        vCPUs the worker needs for it, ≥ 1
 * @param measuredBy   the bench that measures it, e.g. {@code bench/load-driver.sh}
 * @param measurement  its figures, one sentence
 */
public record WorkerCapacity(double perWorkerQps, int vcpus, String measuredBy, String measurement) {
    /** The resource the measured capacity is read from, relative to this class. */
    public static final String RESOURCE = "worker-capacity.properties";
    /**
     * Lambda memory that gives one full vCPU, MB: CPU is allocated in proportion to memory, and 1 769 MB is the
     * equivalent of one vCPU (docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
     */
    public static final int LAMBDA_MB_PER_VCPU = 1_769;

    private static final WorkerCapacity MEASURED = load();

    /** @throws IllegalArgumentException when a figure is out of range or a text is blank */
    public WorkerCapacity {
        if (!(perWorkerQps > 0) || Double.isInfinite(perWorkerQps)) {
            throw new IllegalArgumentException("perWorkerQps must be a finite rate above 0, was " + perWorkerQps);
        }
        if (vcpus < 1) {
            throw new IllegalArgumentException("vcpus must be >= 1, was " + vcpus);
        }
        if (measuredBy == null || measuredBy.isBlank() || measurement == null || measurement.isBlank()) {
            throw new IllegalArgumentException("a measured capacity names its bench and its figures");
        }
    }

    /** The capacity the bench measured ({@value #RESOURCE}), read once per JVM. */
    public static WorkerCapacity measured() {
        return MEASURED;
    }

    /** The load driver's memory for {@link #vcpus()}: {@code vcpus × }{@value #LAMBDA_MB_PER_VCPU}, MB. */
    public int memoryMb() {
        return vcpus * LAMBDA_MB_PER_VCPU;
    }

    /**
     * Reads {@value #RESOURCE}: keys {@code perWorkerQps}, {@code vcpus}, {@code measuredBy}, {@code measurement}.
     *
     * @throws IllegalStateException naming the resource and key when it is missing or a figure is not a number
     */
    static WorkerCapacity load() {
        Properties p = new Properties();
        try (InputStream in = WorkerCapacity.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the classpath beside " + WorkerCapacity.class.getName());
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(RESOURCE + " cannot be read", e);
        }
        try {
            return new WorkerCapacity(Double.parseDouble(required(p, "perWorkerQps")),
                    Integer.parseInt(required(p, "vcpus")), required(p, "measuredBy"), required(p, "measurement"));
        } catch (NumberFormatException e) {
            throw new IllegalStateException(RESOURCE + ": " + e.getMessage(), e);
        }
    }

    private static String required(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException(RESOURCE + " has no " + key);
        }
        return v.trim();
    }
}
