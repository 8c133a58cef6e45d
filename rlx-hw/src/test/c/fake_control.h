/*
 * Test controls shared by the fake vendor libraries (fake_nvml.c, fake_rocm_smi.c). Each fake defines
 * FAKE_API(name) to give the exported controls its own prefix, so both fakes can live in one process.
 *
 *   FAKE_API(set_root)(int on)            setters succeed only while "root" is on (off after reset; each fake
 *                                         checks fake_root in its setters)
 *   FAKE_API(force)(const char *fn, int)  make the named entry point return this status from now on
 *   FAKE_API(calls)(const char *fn)       how often the named entry point was called since reset
 */
#include <string.h>

#define FAKE_SLOTS 64

static int fake_root;
static struct { char fn[80]; int code; } fake_forced[FAKE_SLOTS];
static struct { char fn[80]; int count; } fake_counted[FAKE_SLOTS];

static void fake_clear(void) {
    fake_root = 0;
    memset(fake_forced, 0, sizeof fake_forced);
    memset(fake_counted, 0, sizeof fake_counted);
}

/* Counts a call to fn and returns the status a test forced on it, 0 if none. */
static int fake_enter(const char *fn) {
    for (int i = 0; i < FAKE_SLOTS; i++) {
        if (fake_counted[i].fn[0] == 0) {
            strncpy(fake_counted[i].fn, fn, sizeof fake_counted[i].fn - 1);
        }
        if (strcmp(fake_counted[i].fn, fn) == 0) {
            fake_counted[i].count++;
            break;
        }
    }
    for (int i = 0; i < FAKE_SLOTS && fake_forced[i].fn[0]; i++) {
        if (strcmp(fake_forced[i].fn, fn) == 0) {
            return fake_forced[i].code;
        }
    }
    return 0;
}

void FAKE_API(set_root)(int on) { fake_root = on; }

void FAKE_API(force)(const char *fn, int code) {
    for (int i = 0; i < FAKE_SLOTS; i++) {
        if (fake_forced[i].fn[0] == 0 || strcmp(fake_forced[i].fn, fn) == 0) {
            strncpy(fake_forced[i].fn, fn, sizeof fake_forced[i].fn - 1);
            fake_forced[i].code = code;
            return;
        }
    }
}

int FAKE_API(calls)(const char *fn) {
    for (int i = 0; i < FAKE_SLOTS; i++) {
        if (strcmp(fake_counted[i].fn, fn) == 0) {
            return fake_counted[i].count;
        }
    }
    return 0;
}
