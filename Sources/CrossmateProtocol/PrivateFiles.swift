import Foundation

/// Database files that hold tokens and moves, kept from other users of the machine: the
/// directory is created 0700 and the database with its -wal and -shm files 0600, whatever the
/// umask. The server and the client both keep one.
public enum PrivateFiles {
    public static func prepareDatabase(at path: String) throws {
        let files = FileManager.default
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !files.fileExists(atPath: directory) {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        if !files.fileExists(atPath: path) {
            guard files.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
        }
        for file in [path, path + "-wal", path + "-shm"] where files.fileExists(atPath: file) {
            try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
    }
}
