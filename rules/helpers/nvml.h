/* portkit: NVML's device handles and units over ROCm SMI, for the NVML calls of this code.
 * ROCm SMI names a device by its index and reports in other units (Hz, microwatts,
 * millidegrees); these functions keep NVML's shapes so the calling code stays as written.
 * Link with rocm_smi64. Delete this block once the code calls ROCm SMI (or AMD SMI) itself. */
#ifndef PORTKIT_HELPER_NVML
#define PORTKIT_HELPER_NVML
#include <rocm_smi/rocm_smi.h>
#include <stdint.h>
#include <stdio.h>

typedef uint32_t portkit_nvmlDevice_t; /* a ROCm SMI device index */
typedef struct { unsigned long long total, free, used; } portkit_nvmlMemory_t; /* bytes */
typedef struct { unsigned int gpu, memory; } portkit_nvmlUtilization_t; /* percent */

static inline __attribute__((unused)) rsmi_status_t portkit_nvmlInit(void) { return rsmi_init(0); }

static inline __attribute__((unused)) const char *portkit_nvmlErrorString(rsmi_status_t status) {
  const char *text = NULL;
  if (rsmi_status_string(status, &text) != RSMI_STATUS_SUCCESS || text == NULL) text = "unknown ROCm SMI status";
  return text;
}

static inline __attribute__((unused)) rsmi_status_t portkit_nvmlDeviceGetHandleByIndex(unsigned int index, portkit_nvmlDevice_t *device) {
  uint32_t count = 0;
  rsmi_status_t status = rsmi_num_monitor_devices(&count);
  if (status != RSMI_STATUS_SUCCESS) return status;
  if (index >= count) return RSMI_STATUS_INVALID_ARGS;
  *device = index;
  return RSMI_STATUS_SUCCESS;
}

/* NVML's "domain:bus:device.function" (or "bus:device.function"), in hex, against each
 * device's packed id: domain << 32 | bus << 8 | device << 3 | function. */
static inline __attribute__((unused)) rsmi_status_t portkit_nvmlDeviceGetHandleByPciBusId(const char *bus_id, portkit_nvmlDevice_t *device) {
  unsigned int domain = 0, bus = 0, slot = 0, function = 0;
  if (sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &slot, &function) != 4) {
    domain = 0;
    if (sscanf(bus_id, "%x:%x.%x", &bus, &slot, &function) != 3) return RSMI_STATUS_INVALID_ARGS;
  }
  uint64_t wanted = ((uint64_t)domain << 32) | ((bus & 0xffu) << 8) | ((slot & 0x1fu) << 3) | (function & 0x7u);
  uint32_t count = 0;
  rsmi_status_t status = rsmi_num_monitor_devices(&count);
  for (uint32_t index = 0; status == RSMI_STATUS_SUCCESS && index < count; ++index) {
    uint64_t found = 0;
    status = rsmi_dev_pci_id_get(index, &found);
    if (status == RSMI_STATUS_SUCCESS && found == wanted) {
      *device = index;
      return RSMI_STATUS_SUCCESS;
    }
  }
  return status == RSMI_STATUS_SUCCESS ? RSMI_STATUS_NOT_FOUND : status;
}

/* The clock's current level, in MHz. */
static inline __attribute__((unused)) rsmi_status_t portkit_nvmlDeviceGetClockInfo(portkit_nvmlDevice_t device, rsmi_clk_type_t type,
                                                           unsigned int *mhz) {
  rsmi_frequencies_t levels;
  rsmi_status_t status = rsmi_dev_gpu_clk_freq_get(device, type, &levels);
  if (status != RSMI_STATUS_SUCCESS) return status;
  if (levels.current >= levels.num_supported || levels.current >= RSMI_MAX_NUM_FREQUENCIES) return RSMI_STATUS_UNEXPECTED_DATA;
  *mhz = (unsigned int)(levels.frequency[levels.current] / 1000000u);
  return RSMI_STATUS_SUCCESS;
}

/* Degrees Celsius, from millidegrees. */
static inline __attribute__((unused)) rsmi_status_t portkit_nvmlDeviceGetTemperature(portkit_nvmlDevice_t device, uint32_t sensor,
                                                             unsigned int *celsius) {
  int64_t millidegrees = 0;
  rsmi_status_t status = rsmi_dev_temp_metric_get(device, sensor, RSMI_TEMP_CURRENT, &millidegrees);
  if (status == RSMI_STATUS_SUCCESS) *celsius = millidegrees > 0 ? (unsigned int)(millidegrees / 1000) : 0u;
  return status;
}

/* Milliwatts, from microwatts (the average over ROCm SMI's first sensor). */
static inline __attribute__((unused)) rsmi_status_t portkit_nvmlDeviceGetPowerUsage(portkit_nvmlDevice_t device, unsigned int *milliwatts) {
  uint64_t microwatts = 0;
  rsmi_status_t status = rsmi_dev_power_ave_get(device, 0, &microwatts);
  if (status == RSMI_STATUS_SUCCESS) *milliwatts = (unsigned int)(microwatts / 1000u);
  return status;
}

static inline __attribute__((unused)) rsmi_status_t portkit_nvmlDeviceGetMemoryInfo(portkit_nvmlDevice_t device, portkit_nvmlMemory_t *memory) {
  uint64_t total = 0, used = 0;
  rsmi_status_t status = rsmi_dev_memory_total_get(device, RSMI_MEM_TYPE_VRAM, &total);
  if (status == RSMI_STATUS_SUCCESS) status = rsmi_dev_memory_usage_get(device, RSMI_MEM_TYPE_VRAM, &used);
  if (status != RSMI_STATUS_SUCCESS) return status;
  memory->total = total;
  memory->used = used;
  memory->free = total > used ? total - used : 0u;
  return RSMI_STATUS_SUCCESS;
}

static inline __attribute__((unused)) rsmi_status_t portkit_nvmlDeviceGetUtilizationRates(portkit_nvmlDevice_t device,
                                                                  portkit_nvmlUtilization_t *utilization) {
  uint32_t gpu = 0, memory = 0;
  rsmi_status_t status = rsmi_dev_busy_percent_get(device, &gpu);
  if (status == RSMI_STATUS_SUCCESS) status = rsmi_dev_memory_busy_percent_get(device, &memory);
  if (status != RSMI_STATUS_SUCCESS) return status;
  utilization->gpu = gpu;
  utilization->memory = memory;
  return RSMI_STATUS_SUCCESS;
}

/* Percent of the fan's maximum (ROCm SMI's first fan). */
static inline __attribute__((unused)) rsmi_status_t portkit_nvmlDeviceGetFanSpeed(portkit_nvmlDevice_t device, unsigned int *percent) {
  int64_t speed = 0;
  uint64_t most = 0;
  rsmi_status_t status = rsmi_dev_fan_speed_get(device, 0, &speed);
  if (status == RSMI_STATUS_SUCCESS) status = rsmi_dev_fan_speed_max_get(device, 0, &most);
  if (status != RSMI_STATUS_SUCCESS) return status;
  *percent = most > 0 && speed > 0 ? (unsigned int)((uint64_t)speed * 100u / most) : 0u;
  return RSMI_STATUS_SUCCESS;
}
#endif /* PORTKIT_HELPER_NVML */
