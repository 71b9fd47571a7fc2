// Package protov1 is toolgate plugin protocol v1 as plain Go types.
//
// The generated gRPC code stays internal to the SDK; plugin authors and the host
// both see these types and the Backend interface. A plugin implements Backend (the
// sdk/plugin package does it for declarative plugins); the host's client
// (sdk/pluginhost) implements the same interface across the process boundary, so
// code on either side can be tested against the other through sdk/plugintest.
package protov1
