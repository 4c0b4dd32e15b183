import CrossmateCore
import CrossmateProtocol
import CrossmateSync
import Foundation

// The store: accounts, devices, link codes and socket tickets.
extension Store {
    /// Makes an account with its first device. `firstOnly`: only if the server has no account
    /// yet (a server that takes new accounts by invitation admits its host's this way), else
    /// `NotTheFirstAccount`, changing nothing.
    public func createAccount(
        authorID: String, displayName: String, deviceID: String, tokenHash: String, now: Int64, firstOnly: Bool = false
    ) async throws {
        let lock = database.migrationLock
        try await database.transaction { db in
            if firstOnly {
                // Two first accounts at once: the second waits, then finds the first.
                if let lock { _ = try await db.query(lock) }
                if try await db.first("SELECT 1 AS one FROM accounts LIMIT 1") != nil { throw NotTheFirstAccount() }
            }
            try await db.execute(
                "INSERT INTO accounts (author_id, display_name, created_at) VALUES (?, ?, ?)",
                .text(authorID), .text(displayName), .integer(now))
            try await db.execute(
                "INSERT INTO devices (device_id, author_id, token_hash, created_at) VALUES (?, ?, ?, ?)",
                .text(deviceID), .text(authorID), .text(tokenHash), .integer(now))
        }
    }

    /// Whether any account has been made here.
    public func hasAccounts() async throws -> Bool {
        try await database.read { db in try await db.first("SELECT 1 AS one FROM accounts LIMIT 1") != nil }
    }

    public func device(tokenHash: String) async throws -> StoredDevice? {
        try await database.read { db in
            try await db.first(
                """
                SELECT d.device_id, d.author_id, a.display_name FROM devices d
                JOIN accounts a ON a.author_id = d.author_id WHERE d.token_hash = ?
                """, .text(tokenHash)
            ).map {
                StoredDevice(deviceID: try $0.string("device_id"), authorID: try $0.string("author_id"), displayName: try $0.string("display_name"))
            }
        }
    }

    /// A one-time link code made by `deviceID`; it works only while that device does. The
    /// account's earlier codes stop working: an account has one working code at a time.
    public func createLinkCode(codeHash: String, authorID: String, issuedBy deviceID: String, expiresAt: Int64) async throws {
        try await database.transaction { db in
            try await db.execute("DELETE FROM link_codes WHERE author_id = ?", .text(authorID))
            try await db.execute(
                "INSERT INTO link_codes (code_hash, author_id, issued_by, expires_at) VALUES (?, ?, ?, ?)",
                .text(codeHash), .text(authorID), .text(deviceID), .integer(expiresAt))
        }
    }

    /// Uses a one-time link code to add a device; `nil` when the code is unknown, used or
    /// expired, or the device that made it has been revoked.
    public func linkDevice(codeHash: String, deviceID: String, tokenHash: String, now: Int64) async throws -> StoredDevice? {
        let forUpdate = database.forUpdate
        return try await database.transaction { db -> StoredDevice? in
            guard
                let code = try await db.first(
                    "SELECT author_id, expires_at, used, issued_by FROM link_codes WHERE code_hash = ?\(forUpdate)", .text(codeHash)),
                !code.bool("used"), (code.int("expires_at") ?? 0) > now, let authorID = code.text("author_id"), let issuer = code.text("issued_by"),
                try await db.first("SELECT device_id FROM devices WHERE device_id = ? AND author_id = ?", .text(issuer), .text(authorID)) != nil
            else { return nil }
            try await db.execute("UPDATE link_codes SET used = 1 WHERE code_hash = ?", .text(codeHash))
            try await db.execute(
                "INSERT INTO devices (device_id, author_id, token_hash, created_at) VALUES (?, ?, ?, ?)",
                .text(deviceID), .text(authorID), .text(tokenHash), .integer(now))
            let name = try await db.first("SELECT display_name FROM accounts WHERE author_id = ?", .text(authorID))?.text("display_name") ?? ""
            return StoredDevice(deviceID: deviceID, authorID: authorID, displayName: name)
        }
    }

    /// The account's devices, oldest first.
    /// The display names of `authorIDs` (those that exist).
    public func displayNames(_ authorIDs: [String]) async throws -> [String: String] {
        guard !authorIDs.isEmpty else { return [:] }
        return try await database.read { db in
            var names: [String: String] = [:]
            for chunk in GroupAppend.chunks(authorIDs) {
                for row in try await db.query(
                    "SELECT author_id, display_name FROM accounts WHERE author_id IN (\(GroupAppend.placeholders(chunk.count)))",
                    chunk.map(SQLValue.text))
                {
                    names[try row.string("author_id")] = try row.string("display_name")
                }
            }
            return names
        }
    }

    public func devices(of authorID: String) async throws -> [StoredDeviceInfo] {
        try await database.read { db in
            try await db.query(
                "SELECT device_id, created_at FROM devices WHERE author_id = ? ORDER BY created_at, device_id",
                .text(authorID)
            ).map { StoredDeviceInfo(deviceID: try $0.string("device_id"), createdAt: try $0.integer("created_at")) }
        }
    }

    /// Revokes one of the account's devices: its token stops working, and what it issued (socket
    /// tickets, link codes) goes with it. False when the account has no such device.
    /// Refuses a write a revoked device began (`StoreRefusal.signedOut`): called inside the
    /// write's transaction, with the device's row locked until it commits, so a revocation is
    /// either before the write (refused) or after it (and undoes it: it drops what hangs on the device).
    static func requireDevice(_ db: any SQLConnection, _ deviceID: String, forUpdate: String) async throws {
        guard try await db.first("SELECT device_id FROM devices WHERE device_id = ?\(forUpdate)", .text(deviceID)) != nil else {
            throw StoreRefusal.signedOut
        }
    }

    public func revokeDevice(_ deviceID: String, of authorID: String) async throws -> Bool {
        try await database.transaction { db in
            guard
                try await db.first(
                    "SELECT device_id FROM devices WHERE device_id = ? AND author_id = ?",
                    .text(deviceID), .text(authorID)) != nil
            else { return false }
            try await db.execute("DELETE FROM socket_tickets WHERE device_id = ?", .text(deviceID))
            try await db.execute("DELETE FROM link_codes WHERE issued_by = ?", .text(deviceID))
            try await db.execute("DELETE FROM push_subscriptions WHERE device_id = ?", .text(deviceID))
            try await db.execute("DELETE FROM devices WHERE device_id = ?", .text(deviceID))
            return true
        }
    }

    /// A single-use socket ticket for a device, good until `expiresAt`. Expired tickets are
    /// cleared as new ones are made.
    public func createSocketTicket(ticketHash: String, deviceID: String, now: Int64, expiresAt: Int64) async throws {
        try await database.transaction { db in
            try await db.execute("DELETE FROM socket_tickets WHERE expires_at <= ?", .integer(now))
            try await db.execute(
                "INSERT INTO socket_tickets (ticket_hash, device_id, expires_at) VALUES (?, ?, ?)",
                .text(ticketHash), .text(deviceID), .integer(expiresAt))
        }
    }

    /// Uses up a socket ticket: the device it was made for, or nil when it is unknown, used or
    /// expired.
    public func useSocketTicket(ticketHash: String, now: Int64) async throws -> StoredDevice? {
        try await database.transaction { db in
            guard
                let row = try await db.first(
                    "DELETE FROM socket_tickets WHERE ticket_hash = ? RETURNING device_id, expires_at",
                    .text(ticketHash)),
                (row.int("expires_at") ?? 0) > now, let deviceID = row.text("device_id")
            else { return nil }
            return try await db.first(
                """
                SELECT d.device_id, d.author_id, a.display_name FROM devices d
                JOIN accounts a ON a.author_id = d.author_id WHERE d.device_id = ?
                """, .text(deviceID)
            ).map {
                StoredDevice(deviceID: try $0.string("device_id"), authorID: try $0.string("author_id"), displayName: try $0.string("display_name"))
            }
        }
    }
}

/// The server already has an account (`Store.createAccount(firstOnly:)`).
public struct NotTheFirstAccount: Error {}
