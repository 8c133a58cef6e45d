package dev.rlx.spark;

import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.OnnxValueInfo;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * How DataFrame columns feed an ONNX model's inputs and take its outputs, checked on the driver against the
 * model's declared inputs: column i feeds model input i, output column j takes model output j (later outputs are
 * dropped). A row's value of an input column is a number or an array of numbers, holding the input's dims after
 * the first (the batch); outputs are {@code array<float>}, one row's slice of the output, flattened.
 *
 * @param columnIndex   per model input, its column's index in the input schema
 * @param elementType   per model input, its ONNX element type
 * @param rowShape      per model input, its dims after the batch dim; -1 for the one symbolic dim a row's
 *                      array length gives
 * @param fixedBatch    the model's fixed first dim, or 0 when it is symbolic
 * @param outputColumns names of the output columns
 */
record OnnxColumns(int[] columnIndex, String[] inputNames, String[] elementType, int[][] rowShape, int fixedBatch,
                   String[] outputColumns) implements Serializable {
    static final Set<String> ELEMENT_TYPES = Set.of("FLOAT", "DOUBLE", "INT64", "INT32");

    static OnnxColumns check(OnnxModel model, String modelPath, StructType schema, List<String> inputColumns,
                             List<String> outputColumns) {
        List<OnnxValueInfo> in = model.inputs();
        if (in.size() != inputColumns.size()) {
            throw new RlxSparkException(modelPath + " has " + in.size() + " inputs " + in.stream().map(OnnxValueInfo::name)
                    .toList() + " but " + inputColumns.size() + " input columns are given " + inputColumns);
        }
        if (outputColumns.isEmpty() || outputColumns.size() > model.outputs().size()) {
            throw new RlxSparkException(modelPath + " has " + model.outputs().size() + " outputs " + model.outputs().stream()
                    .map(OnnxValueInfo::name).toList() + " but " + outputColumns.size() + " output columns are given");
        }
        int n = in.size();
        int[] index = new int[n];
        String[] names = new String[n];
        String[] types = new String[n];
        int[][] shapes = new int[n][];
        int fixed = -1;
        for (int i = 0; i < n; i++) {
            OnnxValueInfo v = in.get(i);
            String col = inputColumns.get(i);
            names[i] = v.name();
            index[i] = RlxSpark.columnIndex(schema, col);
            DataType t = schema.fields()[index[i]].dataType();
            boolean array = t instanceof ArrayType a && a.elementType() instanceof NumericType;
            if (!array && !(t instanceof NumericType)) {
                throw new RlxSparkException("column '" + col + "' (for model input '" + v.name() + "') is " + t.simpleString()
                        + "; a model input column holds numbers or arrays of numbers");
            }
            if (!ELEMENT_TYPES.contains(v.elementType())) {
                throw new RlxSparkException("model input '" + v.name() + "' is " + v.elementType() + "; columns can feed "
                        + ELEMENT_TYPES);
            }
            types[i] = v.elementType();
            List<String> dims = v.dims();
            if (dims.isEmpty()) {
                throw new RlxSparkException("model input '" + v.name() + "' declares no shape; rows are batched along its "
                        + "first dim, so it needs one");
            }
            int first = number(dims.get(0));
            if (fixed == -1) {
                fixed = Math.max(first, 0);
            } else if (fixed != Math.max(first, 0)) {
                throw new RlxSparkException("model inputs disagree on the batch dim: " + in);
            }
            int[] rs = new int[dims.size() - 1];
            int symbolic = 0;
            for (int d = 1; d < dims.size(); d++) {
                rs[d - 1] = number(dims.get(d));
                if (rs[d - 1] < 0) {
                    symbolic++;
                }
            }
            if (symbolic > 1) {
                throw new RlxSparkException("model input '" + v.name() + "' has dims " + dims + ": more than one symbolic dim "
                        + "after the batch dim, which one array per row cannot give");
            }
            if (!array && rs.length > 0) {
                throw new RlxSparkException("model input '" + v.name() + "' has dims " + dims + " but column '" + col
                        + "' holds one number per row");
            }
            shapes[i] = rs;
        }
        for (String c : outputColumns) {
            if (List.of(schema.fieldNames()).contains(c)) {
                throw new RlxSparkException("output column '" + c + "' is already a column of the DataFrame");
            }
        }
        return new OnnxColumns(index, names, types, shapes, fixed, outputColumns.toArray(String[]::new));
    }

    /** The schema with the output columns appended. */
    StructType outputSchema(StructType schema) {
        List<StructField> f = new ArrayList<>(List.of(schema.fields()));
        for (String c : outputColumns) {
            f.add(DataTypes.createStructField(c, DataTypes.createArrayType(DataTypes.FloatType, false), true));
        }
        return DataTypes.createStructType(f);
    }

    private static int number(String dim) {
        try {
            int d = Integer.parseInt(dim);
            return d > 0 ? d : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
