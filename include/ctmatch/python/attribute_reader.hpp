#pragma once
// Reading one attribute of many objects of one type as `getattr` would, without looking the
// name up on every read.
//
// Why: converting an fx graph reads six attributes of every node (name, op, target, _args,
// _kwargs, meta). In recent torch (2.11 here) they are C fields of torch._C._NodeBase,
// exposed as member descriptors; PyObject_GetAttr still finds the descriptor through the
// type's method cache and calls it (about 20 ns for `_args` on torch 2.11's host, six times
// a node). A member descriptor says where its field lies in the object, so once the type is
// known the read is a load.
//
// What getattr would do is decided per type and kept until the type changes (its version
// tag: CPython gives a type a new one whenever an attribute of it or of a base is set): the
// field itself where the type's lookup is Python's generic one and the name resolves to a
// member descriptor of an object field (which, a data descriptor, wins over the instance
// dict); PyObject_GetAttr otherwise (a property, a plain instance attribute as in torch 1.x's
// fx.Node, a type with its own __getattr__), and for a field that is not set (getattr raises
// or gives None for it). Used with the GIL held.
#include <Python.h>
#include <structmember.h>

#include <cstddef>

namespace ctmatch::python {

class AttributeReader {
 public:
  /// `name`: an interned str that outlives the reader.
  explicit AttributeReader(PyObject* name) : name_(name) {}

  /// A new reference to `object`'s attribute, or nullptr with the Python error set.
  PyObject* get(PyObject* object) {
    PyTypeObject* type = Py_TYPE(object);
    if (type != type_ || type->tp_version_tag != version_ || !(type->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG))
      learn(type);
    if (offset_ >= 0) {
      PyObject* v = *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(object) + offset_);
      if (v) {
        Py_INCREF(v);
        return v;
      }
    }
    return PyObject_GetAttr(object, name_);
  }

  /// Whether reads of objects of the type seen last take the field directly (for tests).
  bool reads_field() const { return offset_ >= 0; }

 private:
  void learn(PyTypeObject* type) {
    type_ = type;
    offset_ = -1;
    // _PyType_Lookup fills the method cache and gives the type a valid version tag.
    PyObject* found = _PyType_Lookup(type, name_);  // borrowed; nullptr without an error
    version_ = type->tp_version_tag;
    if (type->tp_getattro != PyObject_GenericGetAttr || !found || Py_TYPE(found) != &PyMemberDescr_Type) return;
    const PyMemberDef* member = reinterpret_cast<PyMemberDescrObject*>(found)->d_member;
    // Only object fields, and none whose read raises an audit event.
    if ((member->type == T_OBJECT || member->type == T_OBJECT_EX) && !(member->flags & PY_AUDIT_READ) &&
        PyType_IsSubtype(type, PyDescr_TYPE(found)))
      offset_ = member->offset;
  }

  PyObject* name_;
  PyTypeObject* type_ = nullptr;
  unsigned int version_ = 0;
  Py_ssize_t offset_ = -1;
};

}  // namespace ctmatch::python
