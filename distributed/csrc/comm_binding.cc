// oneflow.distributed._native: the TCP store and the process groups for Python.
//
// Tensors cross as (data pointer, element count, dtype name); the Python layer
// (oneflow/distributed/_collectives.py) checks them and passes contiguous
// buffers on the group's device. Every blocking call releases the GIL, so other Python threads (a
// DataLoader, a watchdog) keep running while a rank waits for its peers.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed/csrc/comm_error.h"
#include "distributed/csrc/process_group.h"
#include "distributed/csrc/reduce_ops.h"
#include "distributed/csrc/tcp_store.h"

namespace py = pybind11;

namespace oneflow {
namespace distributed {
namespace {

using NoGil = py::call_guard<py::gil_scoped_release>;

std::chrono::milliseconds Millis(double seconds) {
  if (!(seconds > 0)) {
    throw std::invalid_argument(
        StrCat("timeout must be a positive number of seconds, got ", seconds));
  }
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000.0)));
}

void* Ptr(uintptr_t p) { return reinterpret_cast<void*>(p); }

std::vector<char> ToVector(const py::bytes& b) {
  std::string s = b;
  return std::vector<char>(s.begin(), s.end());
}

void BindStore(py::module_& m) {
  py::class_<TcpStoreServer>(m, "TCPStoreServer", R"doc(
The store's server; rank 0 runs one on MASTER_PORT (port 0 picks a free port).
Serving stops when the object is garbage collected or shut down.)doc")
      .def(py::init<int>(), py::arg("port"), NoGil())
      .def_property_readonly("port", &TcpStoreServer::port);

  py::class_<TcpStore, std::shared_ptr<TcpStore>>(m, "TCPStore", R"doc(
A client of the TCP key-value store, as ``rank``; connects within ``timeout`` seconds.)doc")
      .def(py::init([](const std::string& host, int port, int rank, double timeout) {
             return std::make_shared<TcpStore>(host, port, rank, Millis(timeout));
           }),
           py::arg("host"), py::arg("port"), py::arg("rank"), py::arg("timeout"), NoGil())
      .def(
          "set",
          [](TcpStore& s, const std::string& key, const py::bytes& value) {
            auto v = ToVector(value);
            py::gil_scoped_release nogil;
            s.set(key, v);
          },
          py::arg("key"), py::arg("value"))
      .def(
          "get",
          [](TcpStore& s, const std::string& key) {
            std::vector<char> v;
            {
              py::gil_scoped_release nogil;
              v = s.get(key);
            }
            return py::bytes(v.data(), v.size());
          },
          py::arg("key"), "The value of ``key``, waiting up to the store's timeout for it.")
      .def("add", &TcpStore::Add, py::arg("key"), py::arg("amount"), NoGil())
      .def("check", &TcpStore::Check, py::arg("keys"), NoGil())
      .def("delete_key", &TcpStore::DeleteKey, py::arg("key"), NoGil())
      .def(
          "wait",
          [](TcpStore& s, const std::vector<std::string>& keys, double timeout) {
            s.wait(keys, Millis(timeout));
          },
          py::arg("keys"), py::arg("timeout"), NoGil())
      .def("close", &TcpStore::Close, NoGil())
      .def_property(
          "timeout", [](const TcpStore& s) { return s.timeout().count() / 1000.0; },
          [](TcpStore& s, double t) { s.set_timeout(Millis(t)); })
      .def_property_readonly("rank", &TcpStore::rank);
}

// One class for every backend: new_group makes a group of a backend by name (gloo, or nccl in
// a --config=cuda build with NCCL), and the Python layer calls any group the same way.
void BindProcessGroup(py::module_& m) {
  using PG = ProcessGroup;
  py::class_<PG, std::shared_ptr<PG>>(m, "ProcessGroup", R"doc(
Collectives among ``global_ranks`` over one backend (``backend``: "gloo" for CPU buffers, "nccl"
for buffers on GPU ``device``). Buffers are (address, element count, dtype name); ranks are within
the group. An operation the backend lacks raises RuntimeError.)doc")
      .def_property_readonly("backend", &PG::backend)
      .def_property_readonly("rank", &PG::rank)
      .def_property_readonly("size", &PG::size)
      .def_property_readonly("device", &PG::device)
      .def_property_readonly("global_ranks", &PG::global_ranks)
      .def_property_readonly("name", &PG::name)
      .def_property(
          "timeout", [](const PG& pg) { return pg.timeout().count() / 1000.0; },
          [](PG& pg, double t) { pg.set_timeout(Millis(t)); })
      .def(
          "all_reduce",
          [](PG& pg, uintptr_t data, size_t count, const std::string& dtype,
             const std::string& op) {
            pg.AllReduce(Ptr(data), count, ParseDType(dtype), ParseReduceOp(op));
          },
          py::arg("data"), py::arg("count"), py::arg("dtype"), py::arg("op"), NoGil())
      .def(
          "reduce",
          [](PG& pg, uintptr_t data, size_t count, const std::string& dtype, const std::string& op,
             int root) { pg.Reduce(Ptr(data), count, ParseDType(dtype), ParseReduceOp(op), root); },
          py::arg("data"), py::arg("count"), py::arg("dtype"), py::arg("op"), py::arg("root"),
          NoGil())
      .def(
          "broadcast",
          [](PG& pg, uintptr_t data, size_t count, const std::string& dtype, int root) {
            pg.Broadcast(Ptr(data), count, ParseDType(dtype), root);
          },
          py::arg("data"), py::arg("count"), py::arg("dtype"), py::arg("root"), NoGil())
      .def(
          "all_gather",
          [](PG& pg, uintptr_t in, uintptr_t out, const std::vector<size_t>& counts,
             const std::string& dtype) {
            pg.AllGather(Ptr(in), Ptr(out), counts, ParseDType(dtype));
          },
          py::arg("input"), py::arg("output"), py::arg("counts"), py::arg("dtype"), NoGil())
      .def(
          "gather",
          [](PG& pg, uintptr_t in, uintptr_t out, size_t count, const std::string& dtype,
             int root) { pg.Gather(Ptr(in), Ptr(out), count, ParseDType(dtype), root); },
          py::arg("input"), py::arg("output"), py::arg("count"), py::arg("dtype"), py::arg("root"),
          NoGil())
      .def(
          "scatter",
          [](PG& pg, uintptr_t in, uintptr_t out, size_t count, const std::string& dtype,
             int root) { pg.Scatter(Ptr(in), Ptr(out), count, ParseDType(dtype), root); },
          py::arg("input"), py::arg("output"), py::arg("count"), py::arg("dtype"), py::arg("root"),
          NoGil())
      .def(
          "reduce_scatter",
          [](PG& pg, uintptr_t in, uintptr_t out, const std::vector<size_t>& counts,
             const std::string& dtype, const std::string& op) {
            pg.ReduceScatter(Ptr(in), Ptr(out), counts, ParseDType(dtype), ParseReduceOp(op));
          },
          py::arg("input"), py::arg("output"), py::arg("counts"), py::arg("dtype"), py::arg("op"),
          NoGil())
      .def(
          "all_to_all",
          [](PG& pg, uintptr_t in, const std::vector<size_t>& in_counts, uintptr_t out,
             const std::vector<size_t>& out_counts, const std::string& dtype) {
            pg.AllToAll(Ptr(in), in_counts, Ptr(out), out_counts, ParseDType(dtype));
          },
          py::arg("input"), py::arg("input_counts"), py::arg("output"), py::arg("output_counts"),
          py::arg("dtype"), NoGil())
      .def("barrier", &PG::Barrier, NoGil())
      .def(
          "send",
          [](PG& pg, uintptr_t data, size_t count, const std::string& dtype, int dst,
             uint32_t tag) { pg.Send(Ptr(data), count, ParseDType(dtype), dst, tag); },
          py::arg("data"), py::arg("count"), py::arg("dtype"), py::arg("dst"), py::arg("tag"),
          NoGil())
      .def(
          "recv",
          [](PG& pg, uintptr_t data, size_t count, const std::string& dtype, int src,
             uint32_t tag) { return pg.Recv(Ptr(data), count, ParseDType(dtype), src, tag); },
          py::arg("data"), py::arg("count"), py::arg("dtype"), py::arg("src"), py::arg("tag"),
          NoGil());

  m.def(
      "new_group",
      [](const std::string& backend, std::shared_ptr<TcpStore> store, const std::string& name,
         int rank, const std::vector<int>& global_ranks, double timeout,
         const std::string& hostname, int device) {
        GroupOptions o;
        o.name = name;
        o.rank = rank;
        o.global_ranks = global_ranks;
        o.hostname = hostname;
        o.device = device;
        o.timeout = Millis(timeout);
        return NewProcessGroup(backend, std::move(store), std::move(o));
      },
      py::arg("backend"), py::arg("store"), py::arg("name"), py::arg("rank"),
      py::arg("global_ranks"), py::arg("timeout"), py::arg("hostname") = "127.0.0.1",
      py::arg("device") = -1, NoGil(), R"doc(
A process group of ``backend`` ("gloo", or "nccl" in a build with NCCL) among ``global_ranks``,
as ``rank``; its keys live under ``name`` in ``store``. gloo listens on ``hostname``; nccl runs on
GPU ``device``. Blocks until every member has joined or ``timeout`` seconds pass.)doc");
  m.def("backends", &ProcessGroupBackends, "The backends this build has, sorted.");
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The TCP store and the process groups (gloo, NCCL) behind oneflow.distributed.";
  // pybind11 tries translators newest first, so the subclass is registered last.
  auto& error = py::register_exception<CommError>(m, "DistributedError", PyExc_RuntimeError);
  py::register_exception<CommTimeoutError>(m, "DistributedTimeoutError", error.ptr());
  BindStore(m);
  BindProcessGroup(m);
}

}  // namespace distributed
}  // namespace oneflow
