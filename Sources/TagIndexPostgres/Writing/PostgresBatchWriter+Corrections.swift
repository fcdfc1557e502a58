import TagIndex
import Foundation
import PostgresNIO

extension PostgresBatchWriter {
    /// Recomputes the stored labels of every classified image with content `contentHash` from
    /// what the model gave it and the corrections stored now (as `Corrections.reapply` in
    /// SQLite). The image rows are locked first, in id order, so an index run writing one of
    /// them waits for this transaction.
    mutating func reapplyCorrections(contentHash: String) async throws {
        var binds = PostgresBindings()
        binds.append(contentHash)
        let images = try await session.all(
            "SELECT id FROM images WHERE content_hash = $1 AND error_stage IS NULL ORDER BY id FOR UPDATE", binds
        ) { try $0.decode(Int64.self) }
        guard !images.isEmpty else { return }
        var ids = PostgresBindings()
        ids.append(images)
        let rows = try await session.all("""
            SELECT i.id, ml.packed, il.packed FROM images AS i
            LEFT JOIN model_labels AS ml ON ml.image_id = i.id
            LEFT JOIN image_labels AS il ON il.image_id = i.id
            WHERE i.id = ANY($1::bigint[]) ORDER BY i.id
            """, ids) { try $0.decode((Int64, ByteBuffer?, ByteBuffer?).self) }
        for (imageID, modelPacked, storedPacked) in rows {
            // Until its first correction, an image's stored labels are the model's own.
            var model: [(labelID: Int64, confidence: Int)] = []
            (modelPacked ?? storedPacked)?.readableBytesView.withUnsafeBytes { bytes in
                PackedLabels.forEach(bytes) { labelID, _, confidence in
                    if confidence > 0 { model.append((Int64(labelID), confidence)) }
                }
            }
            let corrected = try await corrections(model, contentHash: contentHash)
            let (confidence, best) = BatchWriter.rollUp(corrected ?? model, taxonomy: taxonomy)
            try await replaceObservations(imageID, confidence: confidence, best: best)
            var update = PostgresBindings()
            update.append(best.values.max().map(Int64.init))
            update.append(imageID)
            try await session.execute("UPDATE images SET top_confidence = $1 WHERE id = $2", update)
            try await keepModelLabels(corrected == nil ? nil : model, imageID: imageID)
        }
    }
}
