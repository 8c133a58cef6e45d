package dev.rlx.spark;

import org.apache.spark.sql.SparkSession;

/** One local[2] Spark session for every test class of the module (starting one takes seconds). */
final class LocalSpark {
    private static SparkSession session;

    private LocalSpark() {}

    static synchronized SparkSession session() {
        if (session == null) {
            session = SparkSession.builder()
                    .master("local[2]")
                    .appName("rlx-spark tests")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.shuffle.partitions", "4")
                    .getOrCreate();
            Runtime.getRuntime().addShutdownHook(new Thread(session::stop));
        }
        return session;
    }
}
