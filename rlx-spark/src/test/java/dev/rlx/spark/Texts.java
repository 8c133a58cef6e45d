package dev.rlx.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Short English-like texts: mostly 1 to 5 words, one in eight up to 24; the same for a seed. */
final class Texts {
    private static final String[] WORDS = ("the a cat dog sits runs on under table garden quickly slowly red blue "
            + "river mountain city people music plays reads book paper machine learning model data compute fast small "
            + "large bright night morning coffee tea rain snow wind summer winter train station bridge").split(" ");

    private Texts() {}

    static List<String> random(int n, long seed) {
        Random r = new Random(seed);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int words = 1 + r.nextInt(r.nextInt(8) == 0 ? 24 : 5);
            StringBuilder b = new StringBuilder();
            for (int w = 0; w < words; w++) {
                b.append(w == 0 ? "" : " ").append(WORDS[r.nextInt(WORDS.length)]);
            }
            out.add(b.append(r.nextBoolean() ? "." : "").toString());
        }
        return out;
    }
}
