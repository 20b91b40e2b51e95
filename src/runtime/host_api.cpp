// The Compiler's part of the classic front's host API (python/weft/_cuda_host.py): page-locked
// and mapped host memory, asynchronous copies, streams, events and the device's properties.
#include <algorithm>

#include "runtime/driver.h"
#include "runtime/runtime.h"

namespace weft::runtime {
namespace {

// cuda.h's flag and result numbers.
constexpr unsigned kHostAllocPortable = 0x01;
constexpr unsigned kHostAllocDeviceMap = 0x02;
constexpr unsigned kHostRegisterPortable = 0x01;
constexpr unsigned kHostRegisterDeviceMap = 0x02;
constexpr unsigned kEventDisableTiming = 0x02;
constexpr CUresult kNotReady = 600;

CUstream asStream(uintptr_t stream) {
  return reinterpret_cast<CUstream>(stream);
}
CUevent asEvent(uintptr_t event) {
  return reinterpret_cast<CUevent>(event);
}

// The answer of a query call: done, not ready, or an error (thrown through check()).
bool queryDone(const Driver& driver, CUresult result, std::string_view call, std::string_view subject) {
  if (result == kNotReady) return false;
  driver.check(result, call, subject);
  return true;
}

}  // namespace

uintptr_t Compiler::allocateHost(size_t bytes, bool mapped) {
  std::shared_ptr<Driver> driver = currentDriver();
  void* address = nullptr;
  WEFT_DRIVER_CALL(*driver, "allocating " + std::to_string(bytes) + " bytes of page-locked host memory",
                   cuMemHostAlloc, &address, std::max<size_t>(bytes, 1),
                   kHostAllocPortable | (mapped ? kHostAllocDeviceMap : 0u));
  return reinterpret_cast<uintptr_t>(address);
}

void Compiler::freeHost(uintptr_t address) {
  if (address == 0) return;
  std::shared_ptr<Driver> driver = currentDriver();
  WEFT_DRIVER_CALL(*driver, "freeing page-locked host memory", cuMemFreeHost,
                   reinterpret_cast<void*>(address));
}

uintptr_t Compiler::mappedDeviceAddress(uintptr_t hostAddress) {
  std::shared_ptr<Driver> driver = currentDriver();
  CUdeviceptr device = 0;
  WEFT_DRIVER_CALL(*driver, "finding the device address of mapped host memory", cuMemHostGetDevicePointer_v2,
                   &device, reinterpret_cast<void*>(hostAddress), 0u);
  return static_cast<uintptr_t>(device);
}

void Compiler::registerHost(uintptr_t address, size_t bytes, bool mapped) {
  std::shared_ptr<Driver> driver = currentDriver();
  WEFT_DRIVER_CALL(*driver, "page-locking host memory", cuMemHostRegister_v2,
                   reinterpret_cast<void*>(address), bytes,
                   kHostRegisterPortable | (mapped ? kHostRegisterDeviceMap : 0u));
}

void Compiler::unregisterHost(uintptr_t address) {
  std::shared_ptr<Driver> driver = currentDriver();
  WEFT_DRIVER_CALL(*driver, "unlocking host memory", cuMemHostUnregister, reinterpret_cast<void*>(address));
}

void Compiler::copyToDeviceAsync(uintptr_t destination, const void* source, size_t bytes, uintptr_t stream) {
  std::shared_ptr<Driver> driver = currentDriver();
  WEFT_DRIVER_CALL(*driver, "copying to the device", cuMemcpyHtoDAsync_v2, destination, source, bytes,
                   asStream(stream));
}

void Compiler::copyToHostAsync(void* destination, uintptr_t source, size_t bytes, uintptr_t stream) {
  std::shared_ptr<Driver> driver = currentDriver();
  WEFT_DRIVER_CALL(*driver, "copying to the host", cuMemcpyDtoHAsync_v2, destination, source, bytes,
                   asStream(stream));
}

uintptr_t Compiler::createStream() {
  std::shared_ptr<Driver> driver = currentDriver();
  CUstream stream = nullptr;
  WEFT_DRIVER_CALL(*driver, "creating a stream", cuStreamCreate, &stream, 0u);
  return reinterpret_cast<uintptr_t>(stream);
}

void Compiler::destroyStream(uintptr_t stream) {
  std::shared_ptr<Driver> driver = currentDriver();
  WEFT_DRIVER_CALL(*driver, "destroying a stream", cuStreamDestroy_v2, asStream(stream));
}

bool Compiler::streamDone(uintptr_t stream) {
  std::shared_ptr<Driver> driver = currentDriver();
  return queryDone(*driver, driver->api().cuStreamQuery(asStream(stream)), "cuStreamQuery",
                   "querying a stream");
}

void Compiler::streamWaitEvent(uintptr_t stream, uintptr_t event) {
  std::shared_ptr<Driver> driver = currentDriver();
  WEFT_DRIVER_CALL(*driver, "making a stream wait for an event", cuStreamWaitEvent, asStream(stream),
                   asEvent(event), 0u);
}

uintptr_t Compiler::createEvent(bool timing) {
  std::shared_ptr<Driver> driver = currentDriver();
  CUevent event = nullptr;
  WEFT_DRIVER_CALL(*driver, "creating an event", cuEventCreate, &event, timing ? 0u : kEventDisableTiming);
  return reinterpret_cast<uintptr_t>(event);
}

void Compiler::destroyEvent(uintptr_t event) {
  std::shared_ptr<Driver> driver = currentDriver();
  WEFT_DRIVER_CALL(*driver, "destroying an event", cuEventDestroy_v2, asEvent(event));
}

void Compiler::recordEvent(uintptr_t event, uintptr_t stream) {
  std::shared_ptr<Driver> driver = currentDriver();
  WEFT_DRIVER_CALL(*driver, "recording an event", cuEventRecord, asEvent(event), asStream(stream));
}

void Compiler::synchronizeEvent(uintptr_t event) {
  std::shared_ptr<Driver> driver = currentDriver();
  WEFT_DRIVER_CALL(*driver, "waiting for an event", cuEventSynchronize, asEvent(event));
}

bool Compiler::eventDone(uintptr_t event) {
  std::shared_ptr<Driver> driver = currentDriver();
  return queryDone(*driver, driver->api().cuEventQuery(asEvent(event)), "cuEventQuery", "querying an event");
}

float Compiler::elapsedMilliseconds(uintptr_t start, uintptr_t end) {
  std::shared_ptr<Driver> driver = currentDriver();
  float milliseconds = 0;
  WEFT_DRIVER_CALL(*driver, "timing two events", cuEventElapsedTime, &milliseconds, asEvent(start),
                   asEvent(end));
  return milliseconds;
}

std::string Compiler::deviceName() {
  std::shared_ptr<Driver> driver = currentDriver();
  char name[256] = {};
  WEFT_DRIVER_CALL(*driver, "querying device 0", cuDeviceGetName, name, static_cast<int>(sizeof(name) - 1),
                   driver->device());
  return name;
}

int Compiler::deviceAttribute(int attribute) {
  std::shared_ptr<Driver> driver = currentDriver();
  int value = 0;
  WEFT_DRIVER_CALL(*driver, "querying device 0", cuDeviceGetAttribute, &value, attribute, driver->device());
  return value;
}

std::pair<size_t, size_t> Compiler::memoryInfo() {
  std::shared_ptr<Driver> driver = currentDriver();
  size_t free = 0;
  size_t total = 0;
  WEFT_DRIVER_CALL(*driver, "querying device memory", cuMemGetInfo_v2, &free, &total);
  return {free, total};
}

}  // namespace weft::runtime
