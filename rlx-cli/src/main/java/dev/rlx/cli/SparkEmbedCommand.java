package dev.rlx.cli;

import dev.rlx.ir.RlxException;
import dev.rlx.onnx.embed.MiniLm;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rlx spark-embed --input in.parquet --output out.parquet --text-column text}: the embedding of a text
 * column added to a Parquet data set by a Spark job (rlx-spark's {@code SparkEmbedJob}). Spark is not on the
 * class path of the other commands: the launchers add its jars for this command only (the source tree's
 * {@code ./rlx} from the build, an installed rlx from {@code SPARK_HOME}), so this class checks for Spark before
 * it touches any class that needs it.
 */
@Command(name = "spark-embed", mixinStandardHelpOptions = true,
        description = "Add all-MiniLM-L6-v2 embeddings of a text column to a Parquet data set with a Spark job "
                + "(local or on a cluster); null texts get null embeddings.")
final class SparkEmbedCommand implements Callable<Integer> {
    @Option(names = "--input", required = true, paramLabel = "PATH", description = "Parquet file or folder to read.")
    String input;

    @Option(names = "--output", required = true, paramLabel = "PATH", description = "Parquet folder to write.")
    String output;

    @Option(names = "--text-column", required = true, paramLabel = "NAME", description = "The string column to embed.")
    String textColumn;

    @Option(names = "--output-column", defaultValue = "embedding", paramLabel = "NAME",
            description = "The array<float> column to add (default: ${DEFAULT-VALUE}).")
    String outputColumn;

    @Option(names = "--master", defaultValue = "local[*]", paramLabel = "URL",
            description = "Spark master (default: ${DEFAULT-VALUE}); under spark-submit, its own.")
    String master;

    @Option(names = "--overwrite", description = "Replace the output if it exists.")
    boolean overwrite;

    @Option(names = {"--int8", "--quantized"}, description = "Use the int8 (dynamically quantized) model.")
    boolean int8;

    @Option(names = "--batch-size", defaultValue = "32", paramLabel = "N",
            description = "Texts per model run (default: ${DEFAULT-VALUE}).")
    int batchSize;

    @Option(names = "--bucket", defaultValue = "16", paramLabel = "N",
            description = "Round each batch's length up to a multiple of N tokens (default: ${DEFAULT-VALUE}).")
    int bucket;

    @Option(names = "--max-length", defaultValue = "0", paramLabel = "N",
            description = "Cut texts to this many tokens (default: the tokenizer's 128; at most 512).")
    int maxLength;

    @Spec
    CommandSpec spec;

    /** The class whose absence means Spark is not on the class path. */
    static final String SPARK_CLASS = "org.apache.spark.sql.SparkSession";

    @Override
    public Integer call() {
        OptionChecks.between(spec, "--batch-size", batchSize, 1, 4096);
        OptionChecks.between(spec, "--bucket", bucket, 1, MiniLm.MAX_POSITIONS);
        if (maxLength != 0) {
            OptionChecks.between(spec, "--max-length", maxLength, 2, MiniLm.MAX_POSITIONS);
        }
        if (!sparkPresent()) {
            throw new SparkMissingException("Spark is not on the class path: run this command from the source tree's "
                    + "./rlx (which adds Spark's jars for spark-embed), or set SPARK_HOME to a Spark 4 installation "
                    + "for an installed rlx, or spark-submit rlx-spark's -all.jar (see the README's Spark section)");
        }
        PrintWriter err = spec.commandLine().getErr();
        String summary = SparkEmbedRun.run(this);
        err.println(summary);
        err.flush();
        return 0;
    }

    static boolean sparkPresent() {
        try {
            Class.forName(SPARK_CLASS, false, SparkEmbedCommand.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Spark is needed and not there. */
    static final class SparkMissingException extends RlxException {
        private static final long serialVersionUID = 1L;

        SparkMissingException(String message) {
            super(message);
        }
    }
}
