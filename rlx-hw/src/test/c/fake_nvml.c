/*
 * A fake NVML (libnvidia-ml.so) for tests on machines without NVIDIA GPUs: the entry points RLX calls, with two
 * canned devices, setters that need "root" (see fake_control.h) and test hooks to force error codes.
 *
 *   device 0 "RLX Fake H100": every sensor, 2 fans, power cap 100..350 W (default 300), clocks lockable
 *   device 1 "RLX Fake L4 (passive)": no power reading, no fans, no locked clocks (NOT_SUPPORTED)
 *
 * Build: gcc -shared -fPIC -o libnvidia-ml.so fake_nvml.c
 */
#include <stdio.h>
#include <string.h>

#define FAKE_API(name) fake_nvml_##name
#include "fake_control.h"

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0, NVML_ERROR_UNINITIALIZED = 1, NVML_ERROR_INVALID_ARGUMENT = 2, NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4, NVML_ERROR_NOT_FOUND = 6, NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9, NVML_ERROR_GPU_IS_LOST = 15, NVML_ERROR_UNKNOWN = 999
};
enum { NVML_TEMPERATURE_GPU = 0, NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

typedef struct { unsigned int gpu; unsigned int memory; } nvmlUtilization_t;

struct fake_device {
    const char *name;
    unsigned temp, power_mw, limit_mw, min_mw, max_mw, default_mw, sm_mhz, mem_mhz;
    int has_power, fans, can_lock;
    unsigned fan_pct[2], fan_default, util_gpu, util_mem;
    unsigned locked_min, locked_max;
    int fan_manual[2];
};
typedef struct fake_device *nvmlDevice_t;

static const struct fake_device canned[2] = {
    {"RLX Fake H100", 61, 123456, 300000, 100000, 350000, 300000, 1410, 1215, 1, 2, 1, {42, 42}, 42, 87, 35, 0, 0, {0, 0}},
    {"RLX Fake L4 (passive)", 45, 0, 72000, 40000, 72000, 72000, 2040, 6251, 0, 0, 0, {0, 0}, 0, 3, 1, 0, 0, {0, 0}},
};
static struct fake_device devices[2];
static int inited, unterminated_name;

void fake_nvml_reset(void) {
    fake_clear();
    memcpy(devices, canned, sizeof devices);
    unterminated_name = 0;
}

/* While on, nvmlDeviceGetName fills the whole buffer and leaves out the terminating NUL. */
void fake_nvml_unterminated_name(int on) { unterminated_name = on; }

unsigned fake_nvml_power_limit_mw(int dev) { return devices[dev].limit_mw; }
unsigned fake_nvml_locked_clock(int dev, int max) { return max ? devices[dev].locked_max : devices[dev].locked_min; }
/* -1 while the fan is under automatic control. */
int fake_nvml_fan_percent(int dev, int fan) { return devices[dev].fan_manual[fan] ? (int) devices[dev].fan_pct[fan] : -1; }

__attribute__((constructor)) static void fake_nvml_load(void) { fake_nvml_reset(); }

static struct fake_device *dev(nvmlDevice_t d) {
    return d == &devices[0] || d == &devices[1] ? d : NULL;
}

#define ENTER(fn)                                                   \
    int forced_ = fake_enter(fn);                                   \
    if (forced_) return forced_;                                    \
    if (!inited) return NVML_ERROR_UNINITIALIZED

/* Root-only entry points: a forced status, then the device, then whether the board has the knob, then root. */
#define SETTER(fn, d, supported)                                    \
    int forced_ = fake_enter(fn);                                   \
    if (forced_) return forced_;                                    \
    if (!dev(d)) return NVML_ERROR_INVALID_ARGUMENT;                \
    if (!(supported)) return NVML_ERROR_NOT_SUPPORTED;              \
    if (!fake_root) return NVML_ERROR_NO_PERMISSION

#define ENTER_DEVICE(fn, d)                                         \
    ENTER(fn);                                                      \
    struct fake_device *x = dev(d);                                 \
    if (!x) return NVML_ERROR_INVALID_ARGUMENT

nvmlReturn_t nvmlInit_v2(void) {
    int forced = fake_enter("nvmlInit_v2");
    if (forced) return forced;
    inited++;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
    ENTER("nvmlShutdown");
    inited--;
    return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t r) {
    switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    ENTER("nvmlDeviceGetCount_v2");
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    *count = 2;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    ENTER("nvmlDeviceGetHandleByIndex_v2");
    if (index >= 2 || !device) return NVML_ERROR_INVALID_ARGUMENT;
    *device = &devices[index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length) {
    ENTER_DEVICE("nvmlDeviceGetName", d);
    if (unterminated_name) {
        memset(name, 'X', length);
        return NVML_SUCCESS;
    }
    if (strlen(x->name) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    strcpy(name, x->name);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *temp) {
    ENTER_DEVICE("nvmlDeviceGetTemperature", d);
    if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    *temp = x->temp;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw) {
    ENTER_DEVICE("nvmlDeviceGetPowerUsage", d);
    if (!x->has_power) return NVML_ERROR_NOT_SUPPORTED;
    *mw = x->power_mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw) {
    ENTER_DEVICE("nvmlDeviceGetEnforcedPowerLimit", d);
    *mw = x->limit_mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t d, unsigned int *min, unsigned int *max) {
    ENTER_DEVICE("nvmlDeviceGetPowerManagementLimitConstraints", d);
    *min = x->min_mw;
    *max = x->max_mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t d, unsigned int *mw) {
    ENTER_DEVICE("nvmlDeviceGetPowerManagementDefaultLimit", d);
    *mw = x->default_mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t d, unsigned int mw) {
    SETTER("nvmlDeviceSetPowerManagementLimit", d, 1);
    if (mw < d->min_mw || mw > d->max_mw) return NVML_ERROR_INVALID_ARGUMENT;
    d->limit_mw = mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int *mhz) {
    ENTER_DEVICE("nvmlDeviceGetClockInfo", d);
    if (type == NVML_CLOCK_SM || type == NVML_CLOCK_GRAPHICS) *mhz = x->sm_mhz;
    else if (type == NVML_CLOCK_MEM) *mhz = x->mem_mhz;
    else return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceSetGpuLockedClocks(nvmlDevice_t d, unsigned int min, unsigned int max) {
    SETTER("nvmlDeviceSetGpuLockedClocks", d, d->can_lock);
    if (min > max) return NVML_ERROR_INVALID_ARGUMENT;
    d->locked_min = min;
    d->locked_max = max;
    d->sm_mhz = max;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceResetGpuLockedClocks(nvmlDevice_t d) {
    SETTER("nvmlDeviceResetGpuLockedClocks", d, d->can_lock);
    d->locked_min = d->locked_max = 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t d, unsigned int *pct) {
    ENTER_DEVICE("nvmlDeviceGetFanSpeed", d);
    if (x->fans == 0) return NVML_ERROR_NOT_SUPPORTED;
    *pct = x->fan_pct[0];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t d, unsigned int *n) {
    ENTER_DEVICE("nvmlDeviceGetNumFans", d);
    if (x->fans == 0) return NVML_ERROR_NOT_SUPPORTED;
    *n = (unsigned) x->fans;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceSetFanSpeed_v2(nvmlDevice_t d, unsigned int fan, unsigned int pct) {
    SETTER("nvmlDeviceSetFanSpeed_v2", d, d->fans > 0);
    if (fan >= (unsigned) d->fans || pct > 100) return NVML_ERROR_INVALID_ARGUMENT;
    d->fan_pct[fan] = pct;
    d->fan_manual[fan] = 1;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceSetDefaultFanSpeed_v2(nvmlDevice_t d, unsigned int fan) {
    SETTER("nvmlDeviceSetDefaultFanSpeed_v2", d, d->fans > 0);
    if (fan >= (unsigned) d->fans) return NVML_ERROR_INVALID_ARGUMENT;
    d->fan_pct[fan] = d->fan_default;
    d->fan_manual[fan] = 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u) {
    ENTER_DEVICE("nvmlDeviceGetUtilizationRates", d);
    u->gpu = x->util_gpu;
    u->memory = x->util_mem;
    return NVML_SUCCESS;
}
