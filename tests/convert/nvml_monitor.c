/* A host-only C program reading a GPU's memory clock through NVML. */
#include <stdio.h>
#include <nvml.h>

int main(void) {
  nvmlReturn_t status = nvmlInit();
  nvmlDevice_t device;
  unsigned int mhz = 0;
  if (status == NVML_SUCCESS) status = nvmlDeviceGetHandleByIndex(0, &device);
  if (status == NVML_SUCCESS) status = nvmlDeviceGetClockInfo(device, NVML_CLOCK_MEM, &mhz);
  if (status == NVML_SUCCESS) {
    printf("memory clock: %u MHz\n", mhz);
    nvmlShutdown();
  } else {
    printf("no reading: %s\n", nvmlErrorString(status));
  }
  return 0;
}
