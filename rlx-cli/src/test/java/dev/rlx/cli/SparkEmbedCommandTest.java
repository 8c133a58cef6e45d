package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@code rlx spark-embed} on the command's usual class path, which has no Spark (the launchers add it for this
 * command only): the help and usage errors still work, and running it says how to get Spark. The job itself is
 * tested in rlx-spark (SparkEmbedJobTest).
 */
class SparkEmbedCommandTest {
    @Test
    void sparkIsNotOnTheUsualClassPath() {
        assertFalse(SparkEmbedCommand.sparkPresent(), "rlx-cli must not depend on Spark");
    }

    @Test
    void help_listsTheOptions() {
        Cli r = Cli.rlx("spark-embed", "--help");
        assertEquals(0, r.exit());
        for (String o : new String[] {"--input", "--output", "--text-column", "--master", "--batch-size", "--bucket"}) {
            assertTrue(r.out().contains(o), o + " in\n" + r.out());
        }
        assertTrue(Cli.rlx("--help").out().contains("\n  spark-embed "), "listed by rlx --help");
    }

    @Test
    void withoutSpark_failsSayingHowToGetIt() {
        Cli r = Cli.rlx("spark-embed", "--input", "in.parquet", "--output", "out.parquet", "--text-column", "text");
        assertEquals(1, r.exit());
        assertTrue(r.err().startsWith("rlx spark-embed: Spark is not on the class path") && r.err().contains("SPARK_HOME"),
                r.err());
    }

    @Test
    void missingOrOutOfRangeOptions_areUsageErrors() {
        Cli r = Cli.rlx("spark-embed", "--input", "in.parquet");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("Missing required options"), r.err());
        Cli b = Cli.rlx("spark-embed", "--input", "i", "--output", "o", "--text-column", "t", "--batch-size", "0");
        assertEquals(2, b.exit());
        assertEquals("rlx spark-embed: --batch-size must be 1..4096 but is 0; see 'rlx spark-embed --help'\n", b.err());
    }
}
