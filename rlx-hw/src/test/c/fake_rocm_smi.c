/*
 * A fake ROCm SMI (librocm_smi64.so) for tests on machines without AMD GPUs: the entry points RLX calls, with two
 * canned devices, setters that need "root" (see fake_control.h) and test hooks to force status codes.
 *
 *   device 0 "RLX Fake MI300X": edge/junction/memory temperatures, average power, cap 200..750 W (default 600),
 *            fan at 128 of 255
 *   device 1 "RLX Fake Radeon (no average power)": edge temperature only, power only through rsmi_dev_power_get,
 *            no fan, no memory activity (NOT_SUPPORTED)
 *
 * Build: gcc -shared -fPIC -o librocm_smi64.so fake_rocm_smi.c
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#define FAKE_API(name) fake_rsmi_##name
#include "fake_control.h"

typedef int rsmi_status_t;
enum {
    RSMI_STATUS_SUCCESS = 0, RSMI_STATUS_INVALID_ARGS = 1, RSMI_STATUS_NOT_SUPPORTED = 2, RSMI_STATUS_PERMISSION = 4,
    RSMI_STATUS_INPUT_OUT_OF_BOUNDS = 7, RSMI_STATUS_INIT_ERROR = 8, RSMI_STATUS_INSUFFICIENT_SIZE = 11
};
enum { RSMI_TEMP_TYPE_EDGE = 0, RSMI_TEMP_TYPE_JUNCTION = 1, RSMI_TEMP_TYPE_MEMORY = 2, RSMI_TEMP_CURRENT = 0 };
#define NA INT64_MIN /* sensor the board lacks */

struct fake_device {
    const char *name;
    int64_t temp[3];
    int64_t power_ave_uw, power_uw;
    uint64_t cap_uw, min_uw, max_uw, default_uw;
    int64_t fan, fan_max, fan_default;
    int fan_manual;
    int64_t busy, mem_busy;
};

static const struct fake_device canned[2] = {
    {"RLX Fake MI300X", {55000, 71500, 63000}, 250500000, 251000000, 600000000, 200000000, 750000000, 600000000,
     128, 255, 128, 0, 64, 20},
    {"RLX Fake Radeon (no average power)", {40000, NA, NA}, NA, 88000000, 150000000, 100000000, 150000000, 150000000,
     NA, NA, NA, 0, 5, NA},
};
static struct fake_device devices[2];
static int inited;

void fake_rsmi_reset(void) {
    fake_clear();
    memcpy(devices, canned, sizeof devices);
}

uint64_t fake_rsmi_power_cap_uw(int dev) { return devices[dev].cap_uw; }
/* The raw fan setting (0..fan_max), or -1 while the fan is under automatic control. */
int64_t fake_rsmi_fan_raw(int dev) { return devices[dev].fan_manual ? devices[dev].fan : -1; }

__attribute__((constructor)) static void fake_rsmi_load(void) { fake_rsmi_reset(); }

#define ENTER(fn, dv)                                               \
    int forced_ = fake_enter(fn);                                   \
    if (forced_) return forced_;                                    \
    if (!inited) return RSMI_STATUS_INIT_ERROR;                     \
    if ((dv) >= 2) return RSMI_STATUS_INVALID_ARGS;                 \
    struct fake_device *x = &devices[dv]

/* Root-only entry points: a forced status, then the device, then whether the board has the knob, then root. */
#define SETTER(fn, dv, supported)                                   \
    ENTER(fn, dv);                                                  \
    if (!(supported)) return RSMI_STATUS_NOT_SUPPORTED;             \
    if (!fake_root) return RSMI_STATUS_PERMISSION

/* A reading the board may lack. */
#define READING(value, out)                                         \
    if ((value) == NA) return RSMI_STATUS_NOT_SUPPORTED;            \
    *(out) = (value);                                               \
    return RSMI_STATUS_SUCCESS

rsmi_status_t rsmi_init(uint64_t flags) {
    (void) flags;
    int forced = fake_enter("rsmi_init");
    if (forced) return forced;
    inited++;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_shut_down(void) {
    inited--;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **text) {
    switch (status) {
    case RSMI_STATUS_SUCCESS: *text = "RSMI_STATUS_SUCCESS: The function has been executed successfully."; break;
    case RSMI_STATUS_INVALID_ARGS: *text = "RSMI_STATUS_INVALID_ARGS: The provided arguments do not meet the preconditions required for input."; break;
    case RSMI_STATUS_NOT_SUPPORTED: *text = "RSMI_STATUS_NOT_SUPPORTED: The requested information or action is not available for the given input, on the given system"; break;
    case RSMI_STATUS_PERMISSION: *text = "RSMI_STATUS_PERMISSION: Permission denied/EACCESS file error. Many functions require root access to run."; break;
    case RSMI_STATUS_INPUT_OUT_OF_BOUNDS: *text = "RSMI_STATUS_INPUT_OUT_OF_BOUNDS: The provided input is out of allowable or safe range"; break;
    default: *text = "An unknown error occurred"; return RSMI_STATUS_INVALID_ARGS;
    }
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_num_monitor_devices(uint32_t *n) {
    int forced = fake_enter("rsmi_num_monitor_devices");
    if (forced) return forced;
    if (!inited) return RSMI_STATUS_INIT_ERROR;
    *n = 2;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_name_get(uint32_t dv, char *name, size_t len) {
    ENTER("rsmi_dev_name_get", dv);
    if (len == 0) return RSMI_STATUS_INVALID_ARGS;
    strncpy(name, x->name, len - 1);
    name[len - 1] = 0;
    return strlen(x->name) >= len ? RSMI_STATUS_INSUFFICIENT_SIZE : RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv, uint32_t sensor, uint32_t metric, int64_t *temp) {
    ENTER("rsmi_dev_temp_metric_get", dv);
    if (sensor > RSMI_TEMP_TYPE_MEMORY || metric != RSMI_TEMP_CURRENT) return RSMI_STATUS_NOT_SUPPORTED;
    READING(x->temp[sensor], temp);
}

rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv, uint32_t sensor, uint64_t *uw) {
    ENTER("rsmi_dev_power_ave_get", dv);
    (void) sensor;
    READING(x->power_ave_uw, uw);
}

rsmi_status_t rsmi_dev_power_get(uint32_t dv, uint64_t *uw, uint32_t *type) {
    ENTER("rsmi_dev_power_get", dv);
    *type = 1; /* RSMI_CURRENT_POWER */
    READING(x->power_uw, uw);
}

rsmi_status_t rsmi_dev_power_cap_get(uint32_t dv, uint32_t sensor, uint64_t *uw) {
    ENTER("rsmi_dev_power_cap_get", dv);
    (void) sensor;
    *uw = x->cap_uw;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_power_cap_range_get(uint32_t dv, uint32_t sensor, uint64_t *max, uint64_t *min) {
    ENTER("rsmi_dev_power_cap_range_get", dv);
    (void) sensor;
    *max = x->max_uw;
    *min = x->min_uw;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_power_cap_default_get(uint32_t dv, uint64_t *uw) {
    ENTER("rsmi_dev_power_cap_default_get", dv);
    *uw = x->default_uw;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_power_cap_set(uint32_t dv, uint32_t sensor, uint64_t uw) {
    SETTER("rsmi_dev_power_cap_set", dv, 1);
    (void) sensor;
    if (uw < x->min_uw || uw > x->max_uw) return RSMI_STATUS_INPUT_OUT_OF_BOUNDS;
    x->cap_uw = uw;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_fan_speed_get(uint32_t dv, uint32_t sensor, int64_t *speed) {
    ENTER("rsmi_dev_fan_speed_get", dv);
    (void) sensor;
    READING(x->fan, speed);
}

rsmi_status_t rsmi_dev_fan_speed_max_get(uint32_t dv, uint32_t sensor, uint64_t *max) {
    ENTER("rsmi_dev_fan_speed_max_get", dv);
    (void) sensor;
    READING(x->fan_max, max);
}

rsmi_status_t rsmi_dev_fan_speed_set(uint32_t dv, uint32_t sensor, uint64_t speed) {
    SETTER("rsmi_dev_fan_speed_set", dv, x->fan != NA);
    (void) sensor;
    if (speed > (uint64_t) x->fan_max) return RSMI_STATUS_INPUT_OUT_OF_BOUNDS;
    x->fan = (int64_t) speed;
    x->fan_manual = 1;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_fan_reset(uint32_t dv, uint32_t sensor) {
    SETTER("rsmi_dev_fan_reset", dv, x->fan != NA);
    (void) sensor;
    x->fan = x->fan_default;
    x->fan_manual = 0;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv, uint32_t *pct) {
    ENTER("rsmi_dev_busy_percent_get", dv);
    *pct = (uint32_t) x->busy;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_busy_percent_get(uint32_t dv, uint32_t *pct) {
    ENTER("rsmi_dev_memory_busy_percent_get", dv);
    if (x->mem_busy == NA) return RSMI_STATUS_NOT_SUPPORTED;
    *pct = (uint32_t) x->mem_busy;
    return RSMI_STATUS_SUCCESS;
}
